package io.deltasink.storage;

import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.defaults.engine.LoggingMetricsReporter;
import io.delta.kernel.defaults.engine.hadoopio.HadoopFileIO;
import io.delta.kernel.engine.MetricsReporter;

/**
 * Kernel's default engine on Hadoop's file systems, whose metrics reports are made only when they
 * are logged. Kernel's logging reporter turns every snapshot, scan and transaction report into JSON
 * before its logger decides whether INFO is on: several reports a commit, and on a task's first
 * table look-up the loading of the JSON library, for nothing at the WARN level a worker usually
 * gives Kernel. With INFO on for {@code io.delta.kernel.defaults.engine.LoggingMetricsReporter}
 * the reports are logged as before.
 */
final class SinkEngine extends DefaultEngine {
    private static final Logger REPORTS = LoggerFactory.getLogger(LoggingMetricsReporter.class);

    SinkEngine(Configuration hadoopConf) {
        super(new HadoopFileIO(hadoopConf));
    }

    @Override
    public List<MetricsReporter> getMetricsReporters() {
        return REPORTS.isInfoEnabled() ? super.getMetricsReporters() : List.of();
    }
}
