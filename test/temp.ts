// Temporary folders of a test file: each is removed when the file's tests are done (afterAll).
// Import this module at the top of the test file (directly or through a helper), never inside a
// test, so that its afterAll belongs to the file.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const made: string[] = [];

/** A fresh folder under the system's temporary folder, named `prefix` and a random suffix. */
export function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

afterAll(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});
