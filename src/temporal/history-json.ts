/**
 * Workflow histories as the standard protobuf JSON that Temporal's tools write (`temporal workflow show
 * --output json`, the UI's download). The SDK's own `historyToJSON`/`historyFromJSON` fail in this install
 * with "type must be a Type": npm gave @temporalio/common and @temporalio/proto two copies of protobufjs, and
 * protojson's instanceof check rejects the other copy's types. So we use the protojson of the copy that
 * @temporalio/proto's types were built with.
 */
import { createRequire } from 'node:module';
import type { temporal } from '@temporalio/proto';

export type History = temporal.api.history.v1.IHistory;

interface ProtoType {
  fromObject(value: unknown): unknown;
}
interface ProtoJson {
  toJson(type: ProtoType, message: unknown): unknown;
  fromJson(type: ProtoType, json: unknown, options?: { ignoreUnknownFields?: boolean }): unknown;
}

let cached: { historyType: ProtoType; protojson: ProtoJson } | undefined;

function historyCodec(): { historyType: ProtoType; protojson: ProtoJson } {
  if (cached) return cached;
  const requireHere = createRequire(import.meta.url);
  const proto: unknown = requireHere('@temporalio/proto');
  const { patchProtobufRoot } = requireHere('@temporalio/proto/lib/patch-protobuf-root') as {
    patchProtobufRoot(p: unknown): { lookupType(name: string): ProtoType };
  };
  const requireFromProto = createRequire(requireHere.resolve('@temporalio/proto'));
  const protojson = requireFromProto('protobufjs/ext/protojson') as ProtoJson;
  cached = { historyType: patchProtobufRoot(proto).lookupType('temporal.api.history.v1.History'), protojson };
  return cached;
}

/** A fetched history (`handle.fetchHistory()`) as pretty-printed protobuf JSON. */
export function historyToJson(history: History): string {
  const { historyType, protojson } = historyCodec();
  return JSON.stringify(protojson.toJson(historyType, historyType.fromObject(history)), null, 2);
}

/** Protobuf JSON (parsed) back to a history that `Worker.runReplayHistory` accepts. */
export function historyFromJson(json: unknown): History {
  const { historyType, protojson } = historyCodec();
  return protojson.fromJson(historyType, json, { ignoreUnknownFields: true }) as History;
}
