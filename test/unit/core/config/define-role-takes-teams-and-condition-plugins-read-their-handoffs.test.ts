import { defineRole, RoleConfigError } from '../../../../src/core/config/define';
import { evaluateTermination } from '../../../../src/core/conditions/evaluate';
import { clearRegisteredConditions, registerCondition } from '../../../../src/core/conditions/registry';
import { view } from '../../fixtures/termination-view';

afterEach(() => clearRegisteredConditions());


describe('the typed API', () => {
  it('defineRole compiles a swarm with handoffs and a selector team, as the YAML loader does', () => {
    const swarm = defineRole({
      name: 'desk',
      agents: {
        triage: { instructions: 'Route.', handoffs: ['billing', 'user'] },
        billing: { instructions: 'Bill.', handoffs: ['triage'] },
      },
      collaboration: { topology: 'swarm', agents: ['triage', 'billing'], max_turns: 6, termination: { any_of: [{ handoff: 'user' }] } },
    });
    expect(swarm.graph.agents.triage.handoffs).toEqual(['billing', 'user']);
    expect(swarm.graph.maxTurns).toBe(6);
    const crew = defineRole({
      name: 'crew',
      agents: { a: { instructions: 'A.' }, b: { instructions: 'B.' } },
      collaboration: { topology: 'selector', agents: ['a', 'b'], selector: { max_attempts: 2 }, termination: { any_of: [{ max_messages: 4 }] } },
    });
    expect(crew.graph.selector?.maxAttempts).toBe(2);
    expect(crew.graph.maxTurns).toBe(4);
  });

  it('defineRole lists a team mistake by its path', () => {
    expect(() =>
      defineRole({
        name: 'desk',
        agents: { triage: { instructions: 'Route.', handoffs: ['biling'] }, billing: { instructions: 'Bill.', handoffs: ['triage'] } },
        collaboration: { topology: 'swarm', agents: ['triage', 'billing'], max_turns: 2 },
      }),
    ).toThrow(new RoleConfigError(['agents.triage.handoffs[0]: unknown handoff target "biling" (did you mean "billing"?)']));
  });

  it('a registerCondition plugin reads the round\'s handoffs and the tools that ran', () => {
    registerCondition('bounced', {
      parse: (v) => (typeof v === 'number' ? { ok: true, params: { n: v } } : { ok: false, message: 'must be a number' }),
      holds: (p, v) => (v.handoffs ?? []).filter((h) => h.to === 'triage').length >= (p as { n: number }).n && (v.toolsCalled ?? []).includes('lookup'),
      reason: 'bounced',
      priority: 1,
    });
    const role = defineRole({
      name: 'desk',
      agents: { triage: { instructions: 'Route.', handoffs: ['billing'] }, billing: { instructions: 'Bill.', handoffs: ['triage'] } },
      collaboration: { topology: 'swarm', agents: ['triage', 'billing'], max_turns: 9, termination: { any_of: [{ bounced: 2 }] } },
    });
    const twice = [{ from: 'billing', to: 'triage' }, { from: 'triage', to: 'billing' }, { from: 'billing', to: 'triage' }];
    expect(evaluateTermination(role.graph.termination, view({ handoffs: twice, toolsCalled: ['lookup'] }))?.reason).toBe('bounced');
    expect(evaluateTermination(role.graph.termination, view({ handoffs: twice.slice(0, 2), toolsCalled: ['lookup'] }))).toBeNull();
    expect(evaluateTermination(role.graph.termination, view({ handoffs: twice }))).toBeNull();
  });
});
