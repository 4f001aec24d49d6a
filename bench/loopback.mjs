// Preloaded into json-server (NODE_OPTIONS=--import): its CLI takes --host but does not pass it
// on to listen(), so it would listen on every interface. This keeps it on 127.0.0.1.
import net from 'node:net'

const listen = net.Server.prototype.listen
net.Server.prototype.listen = function (port, host, ...rest) {
  if (typeof port !== 'number' || typeof host === 'string') return listen.call(this, port, host, ...rest)
  const callback = [host, ...rest].find((arg) => typeof arg === 'function')
  return listen.call(this, port, '127.0.0.1', callback)
}
