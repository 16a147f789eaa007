/**
 * JSON text for event data, metadata and snapshots that keeps Dates as Dates (tagged `{"$date": iso}`,
 * as MongoDB extended JSON does), so both adapters give back the same values.
 */
export function encodeJson(value: unknown): string {
  return JSON.stringify(value ?? null, function (this: Record<string, unknown>, key, converted: unknown) {
    const original = this[key];
    return original instanceof Date ? { $date: original.toISOString() } : converted;
  });
}

export function decodeJson(text: string): unknown {
  return JSON.parse(text, (_key, value: unknown) => (isTaggedDate(value) ? new Date(value.$date) : value));
}

function isTaggedDate(value: unknown): value is { $date: string } {
  if (typeof value !== 'object' || value === null) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === '$date' && typeof (value as { $date: unknown }).$date === 'string';
}
