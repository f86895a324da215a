package io.deltasink.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;

/**
 * A TCP proxy on 127.0.0.1 in front of an HTTP server that can lose answers: armed with a pattern,
 * it forwards the next request whose request line matches (e.g. the PUT of a Delta commit file)
 * to the server, lets the server handle it, then drops the server's answer and closes the
 * client's connection. The client sees a broken connection for a request that succeeded: what a
 * lost response looks like on a real network. Everything else is passed through byte for byte
 * (the Host header and request signatures stay valid).
 */
public final class ResponseDroppingProxy implements AutoCloseable {
    private final int targetPort;
    private final ServerSocket server;
    private final AtomicReference<Pattern> armed = new AtomicReference<>();
    private final AtomicInteger dropped = new AtomicInteger();
    private final Thread acceptor;
    private volatile boolean closed;

    public ResponseDroppingProxy(int targetPort) {
        this.targetPort = targetPort;
        try {
            server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        acceptor = new Thread(this::acceptLoop, "response-dropping-proxy");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public String endpoint() {
        return "http://127.0.0.1:" + server.getLocalPort();
    }

    /** The answer to the next request whose request line (e.g. {@code PUT /b/k HTTP/1.1}) matches is lost. */
    public void dropNextResponse(Pattern requestLine) {
        armed.set(requestLine);
    }

    /** How many answers were dropped so far. */
    public int dropped() {
        return dropped.get();
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket client = server.accept();
                Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                Connection c = new Connection(client, upstream);
                start(c::clientToServer, "proxy-request");
                start(c::serverToClient, "proxy-response");
            } catch (IOException e) {
                if (!closed) {
                    // the next accept may work; a failed connection is seen by the client
                    continue;
                }
            }
        }
    }

    private static void start(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException ignored) {
            // closing
        }
    }

    private final class Connection {
        private final Socket client;
        private final Socket upstream;
        private volatile boolean dropResponse;

        Connection(Socket client, Socket upstream) {
            this.client = client;
            this.upstream = upstream;
        }

        void clientToServer() {
            StringBuilder window = new StringBuilder();
            byte[] buffer = new byte[16384];
            try (InputStream in = client.getInputStream(); OutputStream out = upstream.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) > 0) {
                    Pattern pattern = armed.get();
                    if (pattern != null) {
                        window.append(new String(buffer, 0, n, StandardCharsets.ISO_8859_1));
                        for (String line : window.toString().split("\r\n", -1)) {
                            if (pattern.matcher(line).matches() && armed.compareAndSet(pattern, null)) {
                                dropResponse = true;
                            }
                        }
                        if (window.length() > 4096) {
                            window.delete(0, window.length() - 1024);
                        }
                    } else {
                        window.setLength(0);
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // a closed connection ends the pump
            } finally {
                closeBoth();
            }
        }

        void serverToClient() {
            byte[] buffer = new byte[16384];
            try (InputStream in = upstream.getInputStream(); OutputStream out = client.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) > 0) {
                    if (dropResponse) {
                        int interim = interimResponseLength(buffer, n);
                        if (interim > 0) {
                            // "100 Continue": the server asks for the body; it has not handled the request yet
                            out.write(buffer, 0, interim);
                            out.flush();
                            if (interim == n) {
                                continue;
                            }
                        }
                        // the server gave its final answer, so it handled the request: the answer never arrives
                        dropped.incrementAndGet();
                        break;
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // a closed connection ends the pump
            } finally {
                closeBoth();
            }
        }

        /** The length of an interim (1xx) response at the start of the bytes, or 0. */
        private int interimResponseLength(byte[] bytes, int length) {
            String text = new String(bytes, 0, length, StandardCharsets.ISO_8859_1);
            if (!text.matches("(?s)HTTP/1\\.[01] 1\\d\\d.*")) {
                return 0;
            }
            int end = text.indexOf("\r\n\r\n");
            return end < 0 ? 0 : end + 4;
        }

        private void closeBoth() {
            try {
                client.close();
            } catch (IOException ignored) {
                // already closed
            }
            try {
                upstream.close();
            } catch (IOException ignored) {
                // already closed
            }
        }
    }
}
