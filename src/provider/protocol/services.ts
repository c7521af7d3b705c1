import type { Message, MessageType } from '@bufbuild/protobuf';
import type * as grpc from '@grpc/grpc-js';
import { Empty } from './generated/plugin/grpc_controller_pb';
import * as tf from './generated/tfplugin6/tfplugin6_pb';
import { errorMessage } from '../../domain/errors';

/** One unary RPC: its request and response messages. */
interface Rpc<I extends Message<I>, O extends Message<O>> {
  readonly input: MessageType<I>;
  readonly output: MessageType<O>;
}

const rpc = <I extends Message<I>, O extends Message<O>>(input: MessageType<I>, output: MessageType<O>): Rpc<I, O> => ({ input, output });

/** The RPCs of `tfplugin6.Provider` a resource-only provider serves; any other is answered UNIMPLEMENTED. */
export const providerRpcs = {
  GetProviderSchema: rpc(tf.GetProviderSchema_Request, tf.GetProviderSchema_Response),
  ValidateProviderConfig: rpc(tf.ValidateProviderConfig_Request, tf.ValidateProviderConfig_Response),
  ValidateResourceConfig: rpc(tf.ValidateResourceConfig_Request, tf.ValidateResourceConfig_Response),
  UpgradeResourceState: rpc(tf.UpgradeResourceState_Request, tf.UpgradeResourceState_Response),
  ConfigureProvider: rpc(tf.ConfigureProvider_Request, tf.ConfigureProvider_Response),
  ReadResource: rpc(tf.ReadResource_Request, tf.ReadResource_Response),
  PlanResourceChange: rpc(tf.PlanResourceChange_Request, tf.PlanResourceChange_Response),
  ApplyResourceChange: rpc(tf.ApplyResourceChange_Request, tf.ApplyResourceChange_Response),
  ImportResourceState: rpc(tf.ImportResourceState_Request, tf.ImportResourceState_Response),
  StopProvider: rpc(tf.StopProvider_Request, tf.StopProvider_Response),
} as const;

type Rpcs = typeof providerRpcs;
type In<R> = R extends Rpc<infer I, Message<infer _O>> ? I : never;
type Out<R> = R extends Rpc<Message<infer _I>, infer O> ? O : never;

/** What a provider answers, RPC by RPC. */
export type ProviderHandlers = { readonly [K in keyof Rpcs]: (request: In<Rpcs[K]>) => Promise<Out<Rpcs[K]>> };

function method<I extends Message<I>, O extends Message<O>>(service: string, name: string, r: Rpc<I, O>): grpc.MethodDefinition<I, O> {
  return {
    path: `/${service}/${name}`,
    requestStream: false,
    responseStream: false,
    requestSerialize: (m: I) => Buffer.from(m.toBinary()),
    requestDeserialize: (b: Buffer) => r.input.fromBinary(b),
    responseSerialize: (m: O) => Buffer.from(m.toBinary()),
    responseDeserialize: (b: Buffer) => r.output.fromBinary(b),
  };
}

/** Adapts an async handler to grpc-js: a thrown error becomes an INTERNAL status (user mistakes travel as diagnostics). */
function unary<I, O>(handle: (request: I) => Promise<O>): grpc.handleUnaryCall<I, O> {
  return (call, callback) => {
    handle(call.request).then(
      (response) => callback(null, response),
      (err: unknown) => callback({ code: 13, details: errorMessage(err) }, null),
    );
  };
}

/** The service definition and implementation of `tfplugin6.Provider` over the handlers. */
export function providerService(handlers: ProviderHandlers): {
  definition: grpc.ServiceDefinition;
  implementation: grpc.UntypedServiceImplementation;
} {
  const definition: grpc.ServiceDefinition = {};
  const implementation: grpc.UntypedServiceImplementation = {};
  for (const name of Object.keys(providerRpcs) as Array<keyof Rpcs>) {
    (definition as Record<string, unknown>)[name] = method('tfplugin6.Provider', name, providerRpcs[name] as Rpc<never, never>);
    implementation[name] = unary(handlers[name] as (request: unknown) => Promise<unknown>) as grpc.UntypedHandleCall;
  }
  return { definition, implementation };
}

/** `plugin.GRPCController`: the host's Shutdown, answered before `onShutdown` runs. */
export function controllerService(onShutdown: () => void): {
  definition: grpc.ServiceDefinition;
  implementation: grpc.UntypedServiceImplementation;
} {
  const shutdown = method('plugin.GRPCController', 'Shutdown', rpc(Empty, Empty));
  return {
    definition: { Shutdown: shutdown },
    implementation: {
      Shutdown: ((_call: unknown, callback: grpc.sendUnaryData<Empty>) => {
        callback(null, new Empty());
        setImmediate(onShutdown);
      }) as grpc.UntypedHandleCall,
    },
  };
}
