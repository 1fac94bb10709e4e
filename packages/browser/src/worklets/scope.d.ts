// The AudioWorkletGlobalScope names the worklets use (TypeScript's DOM lib does not declare them).
declare const sampleRate: number;
/** What `new AudioWorkletNode(context, name, options)` hands the processor's constructor. */
declare interface ProcessorOptions {
  processorOptions?: Record<string, number | undefined>;
}
declare class AudioWorkletProcessor {
  readonly port: MessagePort;
  constructor(options?: ProcessorOptions);
}
declare function registerProcessor(name: string, ctor: new (options?: ProcessorOptions) => AudioWorkletProcessor): void;
