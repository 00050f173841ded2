import { clip } from './limits';

/** User-visible messages of config loading, in one place so tests can pin them. Quoted values are clipped. */
export const CONFIG_MESSAGES = {
  required: 'required',
  expected: (expected: string, got: string) => `expected ${expected}, got ${got}`,
  unknownKey: (key: string, hint: string) => `unknown key "${clip(key)}"${hint}`,
  oneOf: (values: readonly unknown[], hint: string) =>
    `must be one of ${values.map((v) => String(v)).join(', ')}${hint}`,
  atLeast: (n: number | bigint) => `must be >= ${n}`,
  /** Counts and caps (loop caps, stuck.repeats): one message for "not a whole number" and "too small". */
  integerAtLeast: (n: number) => `must be an integer >= ${n}`,
  /** A bounded whole number (the reply caps, in bytes): one message for every way to miss it. */
  integerBetween: (min: number, max: number) => `must be an integer from ${min} to ${max}`,
  greaterThan: (n: number | bigint) => `must be > ${n}`,
  atMost: (n: number | bigint) => `must be <= ${n}`,
  lessThan: (n: number | bigint) => `must be < ${n}`,
  nonEmptyString: 'must be a non-empty string',
  minLength: (n: number | bigint) => `must be at least ${n} characters long`,
  maxLength: (n: number | bigint) => `must be at most ${n} characters long`,
  nonEmptyList: 'must not be empty',
  minItems: (n: number | bigint) => `must list at least ${n} item${n === 1 ? '' : 's'}`,
  maxItems: (n: number | bigint) => `must list at most ${n} item${n === 1 ? '' : 's'}`,
  pattern: (p: string) => `must match ${p}`,
  multipleOf: (n: number) => `must be a multiple of ${n}`,
  invalid: 'invalid value',
  signalType: 'must match [a-z][a-z0-9_]*',
  tooManyAgents: (max: number) => `declares more than ${max} agents; a role may have at most ${max}`,
  emptyDocument: 'the file is empty; expected a mapping with name, agents and collaboration',
  multipleDocuments: 'a role.yaml holds a single YAML document; remove the extra "---"',
  unresolvedAlias: (name: string) => `alias "*${clip(name)}" refers to no anchor "&${clip(name)}" defined before it`,
  yamlValue: (message: string) => `cannot read the YAML: ${message}`,
  tooDeep: (max: number) =>
    `nested more than ${max} levels deep; a role file needs far fewer, so this part cannot be meant (flatten it)`,
  selfAlias: (name: string) =>
    `alias ${name ? `"*${clip(name)}" ` : ''}refers to the mapping or list that contains it, so its value would contain itself`,
  selfReference: 'this object contains itself; a role must be plain data without cycles',
  aliasBomb: (max: number) =>
    `aliases here expand to more than ${max} copies of their values; write the values out or use fewer aliases`,
  readFile: (message: string) => `cannot read the file: ${message}`,
  moreYamlErrors: (n: number) =>
    `and ${n} more YAML syntax error${n === 1 ? '' : 's'} from here on, not listed: they usually follow from the first ones, so fix those and validate again`,
  moreIssues: (n: number, kind: 'errors' | 'warnings') => `and ${n} more ${n === 1 ? kind.slice(0, -1) : kind} from here on, not listed`,
} as const;
