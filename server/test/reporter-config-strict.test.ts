import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readConfigFile } from '../src/config-file.ts';
import { parseConfig } from '../src/config.ts';

const dir = mkdtempSync(join(tmpdir(), 'planhub-reporters-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const read = (json: unknown) => {
  writeFileSync(join(dir, 'planhub.json'), JSON.stringify(json));
  return () => readConfigFile({ HOOK_SECRET: 'a-webhook-secret-0123456789' }, dir);
};

const webhook = { type: 'webhook', url: 'https://hooks.example.com/planhub' };

describe('a reporter entry of planhub.json', () => {
  it('refuses a misspelt secret_env and event_types of a webhook, naming the keys and the entry', () => {
    expect(
      read({
        reporters: [{ type: 'console' }, { ...webhook, sekret_env: 'HOOK_SECRET', evnt_types: ['plan_created'] }],
      }),
    ).toThrow(
      /reporters\.1\.sekret_env, reporters\.1\.evnt_types are not settings of a webhook reporter: allowed are type, url, .*secret_env/,
    );
  });

  it('refuses a misspelt level of a console reporter given as reporter_config', () => {
    expect(read({ reporter_type: 'console', reporter_config: { levl: 'debug' } })).toThrow(
      /reporter_config\.levl is not a setting of a console reporter: allowed are type, level, event_types/,
    );
  });

  it('refuses an unknown key of a file reporter', () => {
    expect(read({ reporters: [{ type: 'file', path: join(dir, 'events.log'), max_byte: 10 }] })).toThrow(
      /reporters\.0\.max_byte is not a setting of a file reporter/,
    );
  });

  it('still takes secret_env and event_types as written', () => {
    const config = read({ reporters: [{ ...webhook, secret_env: 'HOOK_SECRET', event_types: ['plan_created'] }] })();
    expect(config.reporters).toEqual([
      expect.objectContaining({ secret: 'a-webhook-secret-0123456789', event_types: ['plan_created'] }),
    ]);
  });

  it('is refused the same way in a config object, listing the keys of its own kind', () => {
    expect(() => parseConfig({ reporters: [{ ...webhook, evnt_types: ['plan_created'] } as never] })).toThrow(
      /reporters\.0\.evnt_types is not a setting: allowed are type, url, headers, secret/,
    );
  });
});
