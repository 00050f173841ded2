import { loadRoleConfig, formatIssue } from './src/core/config/load';
const y = `name: essay-review
model:
  name: gpt-4o-mini
agents:
  writer:
    instructions: write
    modle: {}
  critic:
    instructions: critique
    tools: [goals]
collaboration:
  topology: review-loop
  agents: [writer, critic, writer, ghost]
  flow:
    - "critic -> nobody"
    - { from: writer, to: critic, lable: x }
    - "garbage"
  termination:
    any_of:
      - max_iterations: 5
      - stuck: { repeats: 1 }
      - result_matches: { agent: critic, regex: "(abc" }
      - stuk: 3
      - converged: ghost2
budget:
  max_cost_usd: "a lot"
`;
const r = loadRoleConfig(y, 'role.yaml');
console.log(r.errors.map(formatIssue).join('\n'));
console.log('--w'); console.log(r.warnings.map(formatIssue).join('\n'));
const r2 = loadRoleConfig('name: x\nagents: {a: {instructions: hi}\ncollab: 1\n', 'b.yaml');
console.log(r2.errors.map(formatIssue).join('\n'));
const r3 = loadRoleConfig('name: x\nagents: {a: {instructions: hi}}\ncollaboration: {topology: pipeline, agents: [a]}\n', 'c.yaml');
console.log(r3.errors.map(formatIssue).join('\n'), r3.warnings.map(formatIssue), JSON.stringify(r3.graph));
