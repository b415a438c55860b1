import { PERMISSION_MODES } from '@assistant-kit/kernel';
import { type AuthorizationRequest, EFFECT_CLASSES, type EffectClass } from '@assistant-kit/tool-core';
import { describe, expect, it } from 'vitest';
import { createPermissionPolicy, PERMISSION_MODE_NAMES, type PermissionMode } from '../src/index.js';

type Outcome = 'runs' | 'asks' | 'refused';

/**
 * The expected outcome per effect class and for host execution, per mode, with permissions
 * enabled and disabled. Written out by hand (not derived from the implementation's table).
 */
const EXPECTED: Record<
  PermissionMode,
  Record<'enabled' | 'disabled', Record<EffectClass | 'host', Outcome>>
> = {
  ask: {
    enabled: {
      read: 'runs',
      workspace_write: 'asks',
      process: 'asks',
      network_read: 'asks',
      external_mutation: 'asks',
      host: 'asks',
    },
    disabled: {
      read: 'runs',
      workspace_write: 'runs',
      process: 'runs',
      network_read: 'runs',
      external_mutation: 'runs',
      host: 'asks',
    },
  },
  auto: {
    enabled: {
      read: 'runs',
      workspace_write: 'runs',
      process: 'runs',
      network_read: 'runs',
      external_mutation: 'runs',
      host: 'asks',
    },
    disabled: {
      read: 'runs',
      workspace_write: 'runs',
      process: 'runs',
      network_read: 'runs',
      external_mutation: 'runs',
      host: 'asks',
    },
  },
  plan: {
    enabled: {
      read: 'runs',
      workspace_write: 'refused',
      process: 'refused',
      network_read: 'refused',
      external_mutation: 'refused',
      host: 'refused',
    },
    disabled: {
      read: 'runs',
      workspace_write: 'refused',
      process: 'refused',
      network_read: 'refused',
      external_mutation: 'refused',
      host: 'refused',
    },
  },
  'full-access': {
    enabled: {
      read: 'runs',
      workspace_write: 'runs',
      process: 'runs',
      network_read: 'runs',
      external_mutation: 'runs',
      host: 'runs',
    },
    disabled: {
      read: 'runs',
      workspace_write: 'runs',
      process: 'runs',
      network_read: 'runs',
      external_mutation: 'runs',
      host: 'runs',
    },
  },
};

function request(effects: EffectClass[], hostExecution = false): AuthorizationRequest {
  return { toolName: 'some_tool', effects, arguments: {}, hostExecution };
}

async function outcomeOf(
  mode: PermissionMode,
  permissionsEnabled: boolean,
  effects: EffectClass[],
  hostExecution = false,
): Promise<{ outcome: Outcome; code?: string }> {
  const asked: AuthorizationRequest[] = [];
  const approving = createPermissionPolicy({
    permissionMode: mode,
    permissionsEnabled,
    approve: (value) => {
      asked.push(value);
      return true;
    },
  });
  const refusing = createPermissionPolicy({ permissionMode: mode, permissionsEnabled, approve: () => false });
  const withApproval = await approving.authorize(request(effects, hostExecution));
  const withRefusal = await refusing.authorize(request(effects, hostExecution));
  if (!withApproval.allowed) return { outcome: 'refused', code: withApproval.code };
  if (asked.length > 0) {
    expect(withRefusal.allowed).toBe(false);
    return { outcome: 'asks', code: withRefusal.allowed ? undefined : withRefusal.code };
  }
  expect(withRefusal.allowed).toBe(true);
  return { outcome: 'runs' };
}

describe('permission modes', () => {
  it('are exactly the settings schema permission modes', () => {
    expect([...PERMISSION_MODE_NAMES]).toEqual([...PERMISSION_MODES]);
  });

  for (const mode of PERMISSION_MODE_NAMES) {
    for (const switchState of ['enabled', 'disabled'] as const) {
      describe(`${mode}, permissions ${switchState}`, () => {
        const permissionsEnabled = switchState === 'enabled';
        for (const effect of EFFECT_CLASSES) {
          it(`${effect}: ${EXPECTED[mode][switchState][effect]}`, async () => {
            const { outcome, code } = await outcomeOf(mode, permissionsEnabled, [effect]);
            expect(outcome).toBe(EXPECTED[mode][switchState][effect]);
            if (outcome !== 'runs') expect(code).toBe('PERMISSION_DENIED');
          });
        }
        it(`host execution of a sandbox-allowed process: ${EXPECTED[mode][switchState].host}`, async () => {
          const { outcome, code } = await outcomeOf(mode, permissionsEnabled, ['process'], true);
          const expected = EXPECTED[mode][switchState].host;
          const processOutcome = EXPECTED[mode][switchState].process;
          // The host grant is separate: the call runs only when both the effect and the host grant allow it.
          const combined: Outcome =
            expected === 'refused' || processOutcome === 'refused'
              ? 'refused'
              : expected === 'asks' || processOutcome === 'asks'
                ? 'asks'
                : 'runs';
          expect(outcome).toBe(combined);
          if (combined !== 'runs' && expected !== 'runs' && processOutcome !== 'refused') {
            expect(code).toBe('HOST_EXECUTION_DENIED');
          }
        });
      });
    }
  }

  it('never lets another grant imply host execution', async () => {
    for (const mode of ['ask', 'auto'] as const) {
      for (const permissionsEnabled of [true, false]) {
        // Every effect class allowed or approved still leaves host execution to its own rule.
        const policy = createPermissionPolicy({ permissionMode: mode, permissionsEnabled });
        const decision = await policy.authorize(request(['process'], true));
        expect(decision).toMatchObject({ allowed: false, code: 'HOST_EXECUTION_DENIED' });
      }
    }
  });

  it('lets the host narrow host execution, but not widen plan mode', async () => {
    const denyHost = createPermissionPolicy({ permissionMode: 'full-access', hostExecution: 'deny' });
    expect(await denyHost.authorize(request(['process'], true))).toMatchObject({ allowed: false });
    expect(await denyHost.authorize(request(['process']))).toEqual({ allowed: true });
    const planHost = createPermissionPolicy({
      permissionMode: 'plan',
      hostExecution: 'allow',
      approve: () => true,
    });
    expect(await planHost.authorize(request(['read'], true))).toMatchObject({
      allowed: false,
      code: 'HOST_EXECUTION_DENIED',
    });
  });

  it('refuses what would ask when no approval callback is configured', async () => {
    const policy = createPermissionPolicy({ permissionMode: 'ask' });
    expect(await policy.authorize(request(['read']))).toEqual({ allowed: true });
    expect(await policy.authorize(request(['workspace_write']))).toMatchObject({
      allowed: false,
      code: 'PERMISSION_DENIED',
    });
  });

  it('rejects an unknown mode', () => {
    expect(() => createPermissionPolicy({ permissionMode: 'yolo' as PermissionMode })).toThrow(
      /Unknown permission mode/,
    );
  });
});
