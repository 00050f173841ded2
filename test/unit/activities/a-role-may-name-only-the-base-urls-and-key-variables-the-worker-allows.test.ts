/**
 * The worker's allowlists for a role's `model.base_url` and `model.api_key_env`: URL matching,
 * defaults, list parsing and the messages that name the setting and the variable that would allow it.
 */
import {
  baseUrlAllowed,
  checkModelEndpoint,
  checkRunEndpoints,
  endpointPolicy,
  ENDPOINT_SETTINGS,
  ENDPOINT_TEXTS,
  type EndpointPolicy,
} from '../../../src/activities/endpoints';

const policy = (over: Partial<EndpointPolicy> = {}): EndpointPolicy => ({
  baseUrls: ['https://api.openai.com/v1'],
  keyEnvs: ['OPENAI_API_KEY'],
  trustRole: false,
  ...over,
});

describe('base URL matching', () => {
  it.each([
    ['https://api.openai.com/v1', 'https://api.openai.com/v1'],
    ['https://api.openai.com/v1/', 'https://api.openai.com/v1'],
    ['https://api.openai.com/v1', 'https://api.openai.com/v1/'],
    ['https://api.openai.com/v1/deployments/x', 'https://api.openai.com/v1'],
    ['https://API.OpenAI.com/v1', 'https://api.openai.com/v1'],
    ['https://api.openai.com:443/v1', 'https://api.openai.com/v1'],
    ['http://127.0.0.1/v1', 'http://127.0.0.1:80'],
    ['http://127.0.0.1:8080/anything', 'http://127.0.0.1:8080'],
    ['http://[::1]:11434/v1', 'http://[::1]:11434/'],
  ])('%s is under %s', (candidate, allowed) => {
    expect(baseUrlAllowed(candidate, allowed)).toBe(true);
  });

  it.each([
    ['http://127.0.0.1:8080/v1', 'http://127.0.0.1:80', 'another port'],
    ['http://127.0.0.1/v1', 'http://127.0.0.1:8080', 'the default port when another is allowed'],
    ['https://api.openai.com.evil.net/v1', 'https://api.openai.com', 'a host that only starts alike'],
    ['https://evil.net/api.openai.com/v1', 'https://api.openai.com', 'the allowed host as a path'],
    ['https://api.openai.com@evil.net/v1', 'https://api.openai.com', 'the allowed host as user info'],
    ['http://api.openai.com/v1', 'https://api.openai.com/v1', 'another scheme'],
    ['https://api.openai.com/v10', 'https://api.openai.com/v1', 'a path that only starts alike'],
    ['https://api.openai.com/v1/../evil', 'https://api.openai.com/v1', 'a path that climbs out'],
    ['https://api.openai.com/v1%2F..%2Fevil', 'https://api.openai.com/v1', 'an encoded slash'],
    ['https://api.openai.com', 'https://api.openai.com/v1', 'a shorter path'],
    ['api.openai.com/v1', 'https://api.openai.com/v1', 'a candidate that is not a URL'],
    ['https://api.openai.com/v1', 'not a url', 'an allowed entry that is not a URL'],
  ])('%s is not under %s (%s)', (candidate, allowed) => {
    expect(baseUrlAllowed(candidate, allowed)).toBe(false);
  });
});

describe('the policy from the worker environment', () => {
  it('defaults to the worker base URL option and OPENAI_API_KEY', () => {
    expect(endpointPolicy({ baseUrl: 'http://127.0.0.1:9000/v1', env: { OPENAI_BASE_URL: 'http://other/v1' } })).toEqual(
      policy({ baseUrls: ['http://127.0.0.1:9000/v1'] }),
    );
  });

  it('defaults to OPENAI_BASE_URL, else the OpenAI endpoint', () => {
    expect(endpointPolicy({ env: { OPENAI_BASE_URL: 'http://llm.internal/v1' } }).baseUrls).toEqual(['http://llm.internal/v1']);
    expect(endpointPolicy({ env: {} }).baseUrls).toEqual([ENDPOINT_SETTINGS.openAiBaseUrl]);
    expect(endpointPolicy({}).keyEnvs).toEqual(['OPENAI_API_KEY']);
  });

  it('reads comma-separated lists, trimming spaces and skipping empty entries; the lists replace the defaults', () => {
    const p = endpointPolicy({
      baseUrl: 'http://127.0.0.1:9000/v1',
      env: {
        TROUPE_ALLOWED_BASE_URLS: ' https://api.openai.com/v1 , http://ollama:11434/v1,, ',
        TROUPE_ALLOWED_KEY_ENVS: 'OPENAI_API_KEY,  OLLAMA_KEY ,',
      },
    });
    expect(p.baseUrls).toEqual(['https://api.openai.com/v1', 'http://ollama:11434/v1']);
    expect(p.keyEnvs).toEqual(['OPENAI_API_KEY', 'OLLAMA_KEY']);
  });

  it('treats a blank list as unset', () => {
    const p = endpointPolicy({ env: { TROUPE_ALLOWED_BASE_URLS: ' ', TROUPE_ALLOWED_KEY_ENVS: '' } });
    expect(p).toEqual(policy());
  });

  it('refuses a listed base URL that is not a URL, naming every bad entry', () => {
    const build = () => endpointPolicy({ env: { TROUPE_ALLOWED_BASE_URLS: 'localhost:8080/v1,https://ok/v1,//x' } });
    expect(build).toThrow(`${ENDPOINT_TEXTS.invalidListEntry('localhost:8080/v1')}\n${ENDPOINT_TEXTS.invalidListEntry('//x')}`);
  });

  it('trusts role values only when asked', () => {
    expect(endpointPolicy({ trustRoleEndpoints: true }).trustRole).toBe(true);
    expect(endpointPolicy({}).trustRole).toBe(false);
  });
});

describe('checking a model', () => {
  it('always allows a model that names neither a base URL nor a key variable', () => {
    expect(checkModelEndpoint({ name: 'gpt' }, policy({ baseUrls: [], keyEnvs: [] }))).toEqual({ ok: true });
  });

  it('allows listed values', () => {
    const model = { name: 'm', baseUrl: 'https://api.openai.com/v1', apiKeyEnv: 'OPENAI_API_KEY' };
    expect(checkModelEndpoint(model, policy())).toEqual({ ok: true });
  });

  it('names the setting, the value and the variable that would allow a base URL', () => {
    const check = checkModelEndpoint({ name: 'm', baseUrl: 'http://evil.example:9/v1' }, policy());
    expect(check).toEqual({
      ok: false,
      violations: [
        {
          setting: 'base_url',
          value: 'http://evil.example:9/v1',
          message:
            'model.base_url "http://evil.example:9/v1" is not allowed by this worker (allowed: https://api.openai.com/v1); ' +
            'add it to TROUPE_ALLOWED_BASE_URLS on the worker to allow it',
        },
      ],
      message: ENDPOINT_TEXTS.baseUrlNotAllowed('http://evil.example:9/v1', ['https://api.openai.com/v1']),
    });
  });

  it('names the key variable (never its value) and TROUPE_ALLOWED_KEY_ENVS', () => {
    const check = checkModelEndpoint({ name: 'm', apiKeyEnv: 'AWS_SECRET_ACCESS_KEY' }, policy());
    expect(check.ok).toBe(false);
    if (check.ok) return;
    expect(check.message).toBe(
      'model.api_key_env "AWS_SECRET_ACCESS_KEY" is not allowed by this worker (allowed: OPENAI_API_KEY); ' +
        'add it to TROUPE_ALLOWED_KEY_ENVS on the worker to allow it',
    );
  });

  it('reports both settings at once', () => {
    const check = checkModelEndpoint({ name: 'm', baseUrl: 'http://evil/v1', apiKeyEnv: 'SECRET' }, policy());
    expect(check.ok).toBe(false);
    if (check.ok) return;
    expect(check.violations.map((v) => v.setting)).toEqual(['base_url', 'api_key_env']);
    expect(check.message).toBe(
      `${ENDPOINT_TEXTS.baseUrlNotAllowed('http://evil/v1', ['https://api.openai.com/v1'])}; ` +
        ENDPOINT_TEXTS.keyEnvNotAllowed('SECRET', ['OPENAI_API_KEY']),
    );
  });

  it('shows allowed base URLs without the credentials or query they may carry', () => {
    const check = checkModelEndpoint(
      { name: 'm', baseUrl: 'http://evil/v1' },
      policy({ baseUrls: ['https://user:s3cret@proxy.internal/v1?key=s3cret'] }),
    );
    expect(check.ok).toBe(false);
    if (check.ok) return;
    expect(check.message).toContain('(allowed: https://proxy.internal/v1)');
    expect(check.message).not.toContain('s3cret');
  });

  it('says "none" when nothing may be named', () => {
    const check = checkModelEndpoint({ name: 'm', apiKeyEnv: 'K' }, policy({ keyEnvs: [] }));
    expect(check.ok || check.message).toBe(ENDPOINT_TEXTS.keyEnvNotAllowed('K', []));
    expect(ENDPOINT_TEXTS.keyEnvNotAllowed('K', [])).toContain('(allowed: none)');
  });

  it('allows anything when the worker trusts role endpoints', () => {
    const model = { name: 'm', baseUrl: 'http://anywhere:1/v1', apiKeyEnv: 'ANY' };
    expect(checkModelEndpoint(model, policy({ trustRole: true }))).toEqual({ ok: true });
  });
});

describe('checking every model of a run', () => {
  it('returns each refusal with who uses the model, and nothing for allowed models', () => {
    const violations = checkRunEndpoints(
      [
        { who: 'agent writer', model: { name: 'm' } },
        { who: 'agent 研究者', model: { name: 'm', baseUrl: 'http://evil/v1', apiKeyEnv: 'SECRET' } },
        { who: 'judge', model: { name: 'm', apiKeyEnv: 'OTHER' } },
      ],
      policy(),
    );
    expect(violations.map((v) => [v.who, v.setting, v.value])).toEqual([
      ['agent 研究者', 'base_url', 'http://evil/v1'],
      ['agent 研究者', 'api_key_env', 'SECRET'],
      ['judge', 'api_key_env', 'OTHER'],
    ]);
    expect(violations[2]!.message).toBe(
      ENDPOINT_TEXTS.violation('judge', ENDPOINT_TEXTS.keyEnvNotAllowed('OTHER', ['OPENAI_API_KEY'])),
    );
    expect(checkRunEndpoints([{ who: 'agent writer', model: { name: 'm' } }], policy())).toEqual([]);
  });
});
