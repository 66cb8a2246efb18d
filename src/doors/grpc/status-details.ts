/**
 * The `grpc-status-details-bin` trailer: a google.rpc.Status holding one google.rpc.ErrorInfo,
 * protobuf-encoded by hand (three small messages), so a gRPC client reads the same reason,
 * domain and metadata as the other bindings carry in JSON.
 */
import { BinaryWriter } from '@bufbuild/protobuf/wire';
import { errorDomain } from '../../errors/catalogue.js';
import type { HubError } from '../../errors/hub-error.js';

const ERROR_INFO = 'type.googleapis.com/google.rpc.ErrorInfo';

function errorInfo(error: HubError, metadata: Record<string, string>): Uint8Array {
  const w = new BinaryWriter();
  w.uint32(10).string(error.code); // reason = 1
  w.uint32(18).string(errorDomain(error.code)); // domain = 2
  for (const [key, value] of Object.entries(metadata)) {
    w.uint32(26).fork().uint32(10).string(key).uint32(18).string(value).join(); // metadata = 3 (map entries)
  }
  return w.finish();
}

export function statusDetails(status: number, error: HubError, metadata: Record<string, string>): Buffer {
  const w = new BinaryWriter();
  w.uint32(8).int32(status); // code = 1
  w.uint32(18).string(error.message); // message = 2
  w.uint32(26).fork().uint32(10).string(ERROR_INFO).uint32(18).bytes(errorInfo(error, metadata)).join(); // details = 3 (Any)
  return Buffer.from(w.finish());
}
