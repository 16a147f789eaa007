import { handleCommand, type EventStore, type StoredEvent } from '@app/event-store';
import { accountDecider } from '../domain/account/account.decider.js';
import { accountStreamId, type AccountCommand, type AccountEvent } from '../domain/account/account.js';
import type { AccountCommands } from '../application/ports.js';

const ACCOUNT_EVENT_TYPES: ReadonlySet<string> = new Set([
  'AccountOpened',
  'AccountKeysRotated',
  'AccountPlanChanged',
  'AccountSignatureRequirementChanged',
  'AccountBillingStatusChanged',
]);

const toDomain = (e: StoredEvent): AccountEvent => ({ type: e.type, data: e.data } as AccountEvent);

/** Account commands decided over their event stream, appended with the expected version. */
export function eventSourcedAccountCommands(store: EventStore): AccountCommands {
  return {
    async handle(accountId: string, command: AccountCommand) {
      const result = await handleCommand(
        store,
        accountStreamId(accountId),
        {
          decide: (c: AccountCommand, s) => accountDecider.decide(c, s).map((e) => ({ type: e.type, data: e.data })),
          evolve: (s, e: StoredEvent | AccountEvent) => accountDecider.evolve(s, 'version' in e ? toDomain(e) : e),
          initialState: accountDecider.initialState,
        },
        command,
      );
      return { state: result.newState, events: result.newEvents.map(toDomain) };
    },
  };
}

const PAGE = 1_000;

/** Account events after global position `after`, one page at a time, and the position reached. */
export async function readAccountEventsAfter(
  store: EventStore,
  after: number,
): Promise<{ events: AccountEvent[]; position: number; more: boolean }> {
  const page = await store.readAll({ after, limit: PAGE });
  const events = page.filter((e) => ACCOUNT_EVENT_TYPES.has(e.type)).map(toDomain);
  return { events, position: page.length ? Number(page[page.length - 1]!.globalPosition) : after, more: page.length === PAGE };
}
