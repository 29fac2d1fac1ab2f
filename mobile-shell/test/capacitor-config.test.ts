import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const SHELL = fileURLToPath(new URL('..', import.meta.url));
const WEB_DIST = fileURLToPath(new URL('../../web/dist', import.meta.url));

describe('capacitor.config.ts, as the Capacitor CLI reads it', () => {
  it('names the app and bundles the built web page', async () => {
    const { stdout } = await promisify(execFile)('npx', ['cap', 'config', '--json'], { cwd: SHELL });
    const { app } = JSON.parse(stdout) as {
      app: {
        appId: string;
        appName: string;
        webDirAbs: string;
        extConfig: { server?: { androidScheme?: string } };
      };
    };
    expect(app.appId).toBe('dev.hitl.inquiry');
    expect(app.appName).toBe('HITL');
    expect(app.webDirAbs).toBe(WEB_DIST);
    expect(app.extConfig.server?.androidScheme).toBe('https');
  });
});
