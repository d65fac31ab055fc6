// A loopback TCP proxy that a test can cut: in `blackhole` mode it drops every byte both ways and
// accepts new connections without forwarding them, as a network partition looks to both sides.
import { createServer, Server, Socket } from 'node:net';

export interface TcpProxy {
  port: number;
  /** http://127.0.0.1:<port> */
  url: string;
  blackhole(): void;
  pass(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  let cut = false;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = new Socket();
    sockets.add(client);
    sockets.add(upstream);
    upstream.connect(targetPort, targetHost);
    client.on('data', (chunk) => {
      if (!cut) upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (!cut) client.write(chunk);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', end);
    upstream.on('close', end);
    client.on('error', end);
    upstream.on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    blackhole: () => {
      cut = true;
    },
    pass: () => {
      // Connections that lost bytes while cut are broken: drop them so clients reconnect cleanly.
      cut = false;
      for (const socket of sockets) socket.destroy();
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
