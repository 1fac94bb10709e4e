// Reference floor: a bare uWebSockets.js socket that sends each caller message straight back,
// as it came (binary or text), with no framing, DSP, pacing or database. Our server's cost minus
// this is what the pipeline adds.
import uWS from 'uWebSockets.js';
import { Fault, serveBenchmark } from './ipc.js';

const fault = new Fault();

let sessions = 0;
const app = uWS.App().ws('/*', {
  maxPayloadLength: 1024 * 1024,
  upgrade: (res, req, context) => res.upgrade({}, req.getHeader('sec-websocket-key'), req.getHeader('sec-websocket-protocol'), req.getHeader('sec-websocket-extensions'), context),
  open: () => void sessions++,
  message: (ws, message, isBinary) => void (fault.drop(ws) || ws.send(message, isBinary)),
  close: () => void sessions--,
});
const port = await new Promise<number>((resolve) => app.listen('127.0.0.1', 0, (s) => resolve(uWS.us_socket_local_port(s as uWS.us_listen_socket))));
serveBenchmark(port, () => ({ sessions, ringDrops: 0, faultDrops: fault.dropped }));
