/**
 * troupe as a package: `npm run build` and `npm pack`, then a fresh project installs the tarball and
 * imports the public API from `troupe` — at runtime (CommonJS) and in TypeScript through the shipped
 * declarations — defines a role in TypeScript, compiles it, and bundles the workflow code the worker
 * would run; and docs/library.md's example script, taken from the markdown as written, runs in that
 * project against a dev server and an OpenAI-compatible stub: it starts a run, follows it, approves
 * from code and prints the result. Nothing in the project reads the repository's sources.
 */
import { execFile, execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startDevServer, type DevServer } from '../../src/dev/temporal-server';
import { startStubLlm, type StubLlm } from '../helpers/stub-llm';

const ROOT = path.resolve(__dirname, '..', '..');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function sh(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): string {
  return execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', ...env } });
}

/** The ```ts block of `doc` whose first line is `// <file>`: an example as the docs show it. */
function example(doc: string, file: string): string {
  const blocks = [...fs.readFileSync(path.join(ROOT, doc), 'utf8').matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
  const found = blocks.find((b) => b.startsWith(`// ${file}\n`));
  if (!found) throw new Error(`${doc} has no \`\`\`ts block starting with // ${file}`);
  return found;
}

describe('the npm package', () => {
  let project: string;

  beforeAll(() => {
    sh(NPM, ['run', 'build'], ROOT);
    const packDir = fs.mkdtempSync(path.join(os.tmpdir(), 'troupe-pack-'));
    const packed = JSON.parse(sh(NPM, ['pack', '--json', '--pack-destination', packDir], ROOT)) as Array<{ filename: string; files: Array<{ path: string }> }>;
    const tarball = path.join(packDir, packed[0].filename);
    const shipped = packed[0].files.map((f) => f.path);
    expect(shipped).toEqual(expect.arrayContaining(['dist/index.js', 'dist/index.d.ts', 'dist/workflows/index.js', 'bin/troupe.js', 'scripts/get-temporal-cli.sh', 'scripts/cached-tool.sh']));
    expect(shipped.some((f) => f.startsWith('src/') || f.startsWith('test/'))).toBe(false);

    project = fs.mkdtempSync(path.join(os.tmpdir(), 'troupe-consumer-'));
    fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }));
    sh(NPM, ['install', '--prefer-offline', '--no-save', tarball], project);
  }, 600_000);

  test('require("troupe") gives the public API, and defineRole compiles a role written in code', () => {
    const script = `
      const t = require('troupe');
      const names = ['defineRole', 'loadRole', 'startRun', 'followRun', 'connectClient', 'createWorker', 'registerCondition', 'registerTopology', 'registerCompletionCheck', 'sendSignal'];
      for (const n of names) if (typeof t[n] !== 'function') throw new Error('missing export ' + n);
      const role = t.defineRole({
        name: 'essay',
        agents: { writer: { instructions: 'Write.' }, critic: { instructions: 'Critique.' } },
        collaboration: { topology: 'review-loop', agents: ['writer', 'critic'], termination: { any_of: [{ max_iterations: 2 }] } },
      });
      let error;
      try { t.defineRole({ name: 'Bad Name', agents: {}, collaboration: { topology: 'pipeline', agents: ['ghost'] } }); } catch (e) { error = e; }
      console.log(JSON.stringify({ edges: role.graph.edges.length, cap: role.graph.maxIterations, error: error && error.name, issues: error && error.issues }));
    `;
    const out = JSON.parse(sh(process.execPath, ['-e', script], project));
    expect(out.edges).toBe(4);
    expect(out.cap).toBe(2);
    expect(out.error).toBe('RoleConfigError');
    expect(out.issues).toEqual(expect.arrayContaining(['name: must match [a-z0-9][a-z0-9-]*']));
  });

  test('TypeScript sees typed declarations: a typo in a role is a compile error, a correct program type-checks', () => {
    const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    fs.writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { strict: true, module: 'commonjs', moduleResolution: 'node', target: 'ES2022', noEmit: true, skipLibCheck: true, types: [] }, include: ['*.ts'] }),
    );
    fs.writeFileSync(
      path.join(project, 'good.ts'),
      `import { defineRole, startRun, createWorker, registerCondition, type RunResult } from 'troupe';
const role = defineRole({ name: 'r', agents: { a: { instructions: 'x' } }, collaboration: { topology: 'pipeline', agents: ['a'] } });
const graphName: string = role.graph.name;
void startRun; void createWorker; void registerCondition; void graphName;
export type Done = RunResult['status'];
`,
    );
    sh(process.execPath, [tsc, '-p', '.'], project);
    fs.writeFileSync(path.join(project, 'bad.ts'), `import { defineRole } from 'troupe';\ndefineRole({ name: 'r', agentz: {}, collaboration: {} });\n`);
    let failed = '';
    try {
      sh(process.execPath, [tsc, '-p', '.'], project);
    } catch (e) {
      failed = String((e as { stdout?: string }).stdout);
    }
    fs.rmSync(path.join(project, 'bad.ts'));
    expect(failed).toContain("bad.ts");
    expect(failed).toMatch(/agentz/);
  }, 120_000);

  test('the installed worker bundles its workflow code (what createWorker runs)', () => {
    const out = sh(process.execPath, ['-e', `require('troupe').bundleWorkflows().then((b) => console.log(b.code.length > 10000 ? 'bundled' : 'empty'))`], project);
    expect(out.trim()).toBe('bundled');
  }, 120_000);

  test('the installed bin validates a role file', () => {
    fs.writeFileSync(path.join(project, 'role.yaml'), 'name: r\nagents:\n  a: { instructions: x }\ncollaboration:\n  topology: pipeline\n  agents: [a]\n');
    const out = sh(process.execPath, [path.join(project, 'node_modules', 'troupe', 'bin', 'troupe.js'), 'validate', 'role.yaml'], project);
    expect(out).toContain('✓ role.yaml is valid');
  });

  test("the installed get-temporal-cli.sh runs from another folder, with the steps it shares with get-jaeger.sh beside it", () => {
    const script = path.join(project, 'node_modules', 'troupe', 'scripts', 'get-temporal-cli.sh');
    const cli = sh('bash', [script], os.tmpdir()).trim();
    expect(sh(cli, ['--version'], project)).toContain('temporal version');
  });

  test("docs/library.md's example, as written, starts a run, follows it, approves from code and prints the result", async () => {
    let server: DevServer | undefined;
    let stub: StubLlm | undefined;
    try {
      [server, stub] = await Promise.all([startDevServer({ headless: true }), startStubLlm()]);
      stub.script('writer', [{ text: 'The sky is blue because air scatters blue light most.' }]);
      stub.script('critic', [{ text: '```result\nClear and correct.\nscore: 90\n```' }]);
      fs.writeFileSync(path.join(project, 'run.mts'), example('docs/library.md', 'run.mts'));
      const env = {
        TEMPORAL_ADDRESS: server.address,
        TEMPORAL_NAMESPACE: server.namespace,
        TEMPORAL_UI_URL: 'http://ui.example:8080/',
        TROUPE_TASK_QUEUE: `library-example-${process.pid}`,
        OPENAI_BASE_URL: stub.url,
        OPENAI_API_KEY: 'test-key',
        OPENAI_MODEL: 'stub-model',
      };
      // not execFileSync: the stub answers from this process, which must not block
      const out = await new Promise<string>((resolve, reject) =>
        execFile(process.execPath, [path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), 'run.mts'], { cwd: project, encoding: 'utf8', env: { ...process.env, ...env }, timeout: 240_000 }, (error, stdout, stderr) =>
          error ? reject(new Error(`${error.message}\n${stdout}\n${stderr}`)) : resolve(stdout),
        ),
      );
      const lines = out.trim().split('\n');
      expect(lines[0]).toMatch(/^Web UI: http:\/\/ui\.example:8080\/namespaces\/default\/workflows\/essay-\S+$/);
      expect(lines.slice(1)).toEqual([
        expect.stringMatching(/^started essay-\S+$/),
        'writer: The sky is blue because air scatters blue light most.',
        'critic: Clear and correct. score: 90',
        'asked: r1 before_exit approve the final result of critic: Clear and correct. score',
        'applied to r1: the run ends with this result',
        'completed: result_match: critic score 90 >= 85',
        'Clear and correct.',
        'score: 90',
      ]);
    } finally {
      await stub?.close();
      await server?.stop();
    }
  }, 300_000);
});
