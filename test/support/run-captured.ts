import { spawn } from 'node:child_process';

export interface CapturedRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `command args` to its end with its output captured (stdin closed); killed after `timeoutMs`.
 * Rejects only when it cannot be started.
 */
export function runCaptured(
  command: string,
  args: string[],
  opts: { cwd: string; env: Record<string, string>; timeoutMs: number },
): Promise<CapturedRun> {
  return new Promise((done, fail) => {
    const proc = spawn(command, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (c) => (stdout += c));
    proc.stderr.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => proc.kill('SIGKILL'), opts.timeoutMs);
    proc.once('error', (err) => {
      clearTimeout(timer);
      fail(err);
    });
    proc.once('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}
