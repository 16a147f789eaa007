/**
 * The share of the fleet's render slots no single account may take: a quarter, and never less than one
 * slot. An account's renders in flight are capped at the fleet's slots minus this share, so another
 * account's render always finds a slot free or one render away, whatever the busiest account does.
 */
export const SHARE_KEPT_FOR_OTHERS = 0.25;

/** Slots of a fleet of `fleetSlots` kept for other accounts than the busiest one. */
export const slotsKeptForOthers = (fleetSlots: number) => Math.max(1, Math.ceil(fleetSlots * SHARE_KEPT_FOR_OTHERS));

/**
 * Never fewer renders in flight than this (unless the plan allows fewer): a client that sends its next
 * render as soon as it has the last one's answer must not be refused because the last one's reservation
 * is settled a moment after its answer was sent. Fleets of one or two slots therefore keep nothing for
 * others and rely on the round robin alone.
 */
export const MIN_RENDERS_IN_FLIGHT = 2;

/**
 * The renders an account may have in flight: its plan's limit, at most the fleet's slots minus the share
 * kept for others, and at least MIN_RENDERS_IN_FLIGHT (or the plan's limit when that is lower). Unknown
 * capacity (no renderer has reported) leaves the plan's limit.
 */
export function effectiveRendersInFlight(planLimit: number, fleetSlots: number | undefined): number {
  if (fleetSlots === undefined || !(fleetSlots > 0)) return planLimit;
  return Math.min(planLimit, Math.max(MIN_RENDERS_IN_FLIGHT, fleetSlots - slotsKeptForOthers(fleetSlots)));
}
