/*
 * The library: what `import … from 'stampede-load'` gives. A profile is loaded (and validated) once,
 * then run against its target; the pieces below are for callers that compose their own pipeline.
 */
export { runProfile, type RunOptions, type RunOutcome } from './pipeline/run.ts';
export { mergeRuns, SegmentMergeError, type MergeOptions, type MergeOutcome } from './merge/index.ts';
export { segmentSchedule, type Segment } from './schedule/segment.ts';
export { loadProfile, parseProfileText, profileJsonSchema, ProfileError, formatProfileError, type ProfileIssue } from './profile/index.ts';
export type { Profile, ProfileSource, ClientSpec, HotKey, MixEntry, Multiplier, Phase, Popularity, Slo, Distribution } from './profile/index.ts';
export type { HttpSettings } from './profile/protocols/http/section.ts';
export type { MemcachedSettings } from './profile/protocols/memcached/section.ts';
export type { RedisSettings } from './profile/protocols/redis/section.ts';
export { parseTarget, type TargetSpec, type ProtocolName as TargetKind } from './profile/protocols/registry.ts';
export type { ServerAddress } from './profile/protocols/address.ts';
export { TargetError } from './profile/target.ts';
export { createSchedule, type Plan, type Schedule, type ScheduledRequest } from './schedule/index.ts';
export { createDriver, RunStartError, type DriverOptions } from './driver/index.ts';
export type { Driver, RunContext } from './driver/types.ts';
export type { DriverReport, GeneratorFigures } from './recorder/driver-report.ts';
export { analyseRun, type RunAnalysis } from './analysis/analyse-run.ts';
export type { Verdict } from './analysis/verdict.ts';
export type { RealismFlag } from './analysis/realism/types.ts';
export { readIntervalLog, readRunFolder, type StoredRun } from './run-folder/index.ts';
export { FilesLostError, Outputs, type LostFile } from './run-folder/outputs.ts';
export { checkPlan, planFigures } from './analysis/plan-check.ts';
export { PlanRefusedError, type PlanFigures } from './analysis/plan-refused.ts';
export type { MergedSegment, RunResult, RunSegment } from './recorder/result.ts';
