package io.deltasink.testing;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;

import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

/**
 * Captures every log line of this JVM (all threads) while open, message and stack trace as
 * text, so a test can search them, e.g. for a secret. Loggers named in {@code debugLoggers}
 * are captured down to DEBUG without sending those extra lines to the console.
 */
public final class LogCapture implements AutoCloseable {
    private static final String NAME = "test-log-capture";

    private final ConcurrentLinkedQueue<String> lines = new ConcurrentLinkedQueue<>();
    private final Appender appender = new Appender();
    private final List<String> addedLoggers = new ArrayList<>();
    private final LoggerContext context;

    public LogCapture(String... debugLoggers) {
        context = (LoggerContext) LogManager.getContext(false);
        Configuration config = context.getConfiguration();
        appender.start();
        config.addAppender(appender);
        for (LoggerConfig logger : config.getLoggers().values()) {
            if (!logger.isAdditive()) { // additive loggers pass their events on to the root: captured there once
                logger.addAppender(appender, Level.ALL, null);
            }
        }
        config.getRootLogger().addAppender(appender, Level.ALL, null);
        for (String name : debugLoggers) {
            if (config.getLoggers().containsKey(name)) {
                continue;
            }
            LoggerConfig debug = new LoggerConfig(name, Level.DEBUG, false);
            debug.addAppender(appender, Level.ALL, null);
            config.addLogger(name, debug);
            addedLoggers.add(name);
        }
        context.updateLoggers();
    }

    /** The lines captured so far, each with its thrown exception's stack trace. */
    public List<String> lines() {
        return List.copyOf(lines);
    }

    /** The captured lines that contain the text. */
    public List<String> linesContaining(String text) {
        return lines.stream().filter(l -> l.contains(text)).toList();
    }

    @Override
    public void close() {
        Configuration config = context.getConfiguration();
        for (String name : addedLoggers) {
            config.removeLogger(name);
        }
        for (Map.Entry<String, LoggerConfig> e : config.getLoggers().entrySet()) {
            e.getValue().removeAppender(NAME);
        }
        config.getRootLogger().removeAppender(NAME);
        context.updateLoggers();
        appender.stop();
    }

    private final class Appender extends AbstractAppender {
        Appender() {
            super(NAME, null, null, true, Property.EMPTY_ARRAY);
        }

        @Override
        public void append(LogEvent event) {
            StringBuilder sb = new StringBuilder()
                    .append(event.getLevel()).append(' ').append(event.getLoggerName()).append(": ")
                    .append(event.getMessage().getFormattedMessage());
            if (event.getThrown() != null) {
                StringWriter trace = new StringWriter();
                event.getThrown().printStackTrace(new PrintWriter(trace));
                sb.append('\n').append(trace);
            }
            lines.add(sb.toString());
        }
    }
}
