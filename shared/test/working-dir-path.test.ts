import { describe, expect, it } from 'vitest';
import { folderOf } from '../src/working-dir-path.ts';

describe('folderOf: a working_dir as the folder it names', () => {
  it.each([
    ['/srv/repo', '/srv/repo'],
    ['/srv/repo/', '/srv/repo'],
    ['/srv//repo', '/srv/repo'],
    ['/srv/./repo/.', '/srv/repo'],
    ['/srv/x/../repo', '/srv/repo'],
    ['/..', '/'],
    ['/', '/'],
    ['.', '.'],
    ['./', '.'],
    ['a/..', '.'],
    ['repo/', 'repo'],
    ['../repo', '../repo'],
    ['../../a/../b', '../../b'],
    ['~/repo/', '~/repo'],
  ])('%s is %s', (dir, folder) => expect(folderOf(dir)).toBe(folder));
});
