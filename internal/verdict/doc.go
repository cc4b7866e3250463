// Package verdict judges a result: against the user's --require, against the
// flush ceiling of its data folder, on whether dbgauge itself could have
// been the limit, and on whether the run held level. Each verdict is written into the result as data
// (result.Verdict, result.Durability, result.Harness), so that a report
// shows it without judging again. Nothing here does I/O.
//
// A session parses each --require once (Parse, for a workload whose
// headline metric is rate; Metrics lists what it accepts) into a
// Requirement, and asks Judge for its result.Verdict after the measure
// phase; merge judges a merged result again the same way. Durability fills
// in res.Durability, whose ceiling the session measured, from the engine's
// commit and flush counters: the rates, a verdict (result.Plausible,
// result.Flagged, …) and its plain words. Harness fills in a
// result.Harness's Limit (result.LimitYes, LimitMaybe, LimitNo) and the
// line that says why and what to do. Steady says whether the measure phase
// held level: the trend of its rate and p99 over the phase, fitted through
// batch means (stats.FitTrend), steady, not steady or cannot tell, which
// --require steady holds a run to.
package verdict
