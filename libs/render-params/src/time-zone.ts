/**
 * One rule for time zones, for the page's `timezone` and a task's schedule alike: a name of the IANA tz
 * database as it is written there (`Area/Location`, `Etc/GMT+5`, `UTC`, and the database's own legacy
 * zones such as `EST` or `EST5EDT`), known to this runtime. Offsets (`+01:00`, `GMT+1`), abbreviations
 * (`CEST`, `PST`) and names not starting with a capital (`utc`) are refused.
 */
const IANA_NAME = /^[A-Z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+){0,2}$/;

/**
 * Names the runtime's ICU accepts that the tz database does not define: the three-letter IDs of old Java
 * (`PST` is ambiguous, not a zone) and ICU's `SystemV/` zones.
 */
const ICU_ONLY = /^(?:ACT|AET|AGT|ART|AST|BET|BST|CAT|CNT|CST|CTT|EAT|ECT|IET|IST|JST|MIT|NET|NST|PLT|PNT|PRT|PST|SST|VST)$|^SystemV\//;

/**
 * Names found valid, so a task's or a page's zone is checked without building a formatter (tens of µs)
 * each time. The runtime's zones are a few hundred, but it accepts any letter case of each: the set stops
 * growing at KNOWN_MAX, whatever callers send.
 */
const known = new Set<string>();
const KNOWN_MAX = 2_000;

export function isIanaTimeZone(name: string): boolean {
  if (known.has(name)) return true;
  if (!IANA_NAME.test(name) || ICU_ONLY.test(name)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    if (known.size < KNOWN_MAX) known.add(name);
    return true;
  } catch {
    return false;
  }
}
