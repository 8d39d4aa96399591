/**
 * A 004 working_dir as the folder it names. Upstream builds `Path(working_dir) / ".supyagent" / "plans"`, so
 * `/srv/repo`, `/srv/repo/`, `/srv//repo` and `/srv/./repo` are one folder there, and `.`, `./` or `a/..` the current one, `.`. Read as the file system reads it, but lexically: `..` leaves the folder
 * before it (at the root, the root), links are not followed, and `~` stays as written (the server cannot know the
 * agent's home folder).
 */
export const folderOf = (dir: string): string => {
  const absolute = dir.startsWith('/');
  const parts: string[] = [];
  for (const part of dir.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..' && parts.length > 0 && parts.at(-1) !== '..') parts.pop();
    else if (part !== '..' || !absolute) parts.push(part);
  }
  const joined = parts.join('/');
  if (absolute) return `/${joined}`;
  return joined === '' ? '.' : joined;
};
