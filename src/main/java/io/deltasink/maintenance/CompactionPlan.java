package io.deltasink.maintenance;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.deltasink.table.TableFile;

/**
 * Which files one compaction run rewrites, decided from the table's file list alone (no I/O): per
 * table partition, the small files bin-packed into bins near the target size; cold partitions
 * first; whole bins up to the run's bound.
 *
 * @param bins the bins to rewrite, coldest table partition first
 */
record CompactionPlan(List<Bin> bins) {

    /**
     * Files of one table partition rewritten together into new files.
     *
     * @param directory the folder of the first input below the table root, where the new files go
     */
    record Bin(Map<String, String> partitionValues, String directory, List<TableFile> files, long bytes) {
    }

    /**
     * @param files      the table's data files
     * @param nowMillis  the current time, against which {@link CompactionOptions#minAge()} is measured
     */
    static CompactionPlan of(List<TableFile> files, CompactionOptions options, long nowMillis) {
        Map<Map<String, String>, List<TableFile>> byPartition = new LinkedHashMap<>();
        for (TableFile file : files) {
            byPartition.computeIfAbsent(file.partitionValues(), k -> new ArrayList<>()).add(file);
        }
        List<Partition> partitions = new ArrayList<>();
        for (Map.Entry<Map<String, String>, List<TableFile>> e : byPartition.entrySet()) {
            long newest = e.getValue().stream().mapToLong(TableFile::modificationTime).max().orElseThrow();
            if (nowMillis - newest < options.minAge().toMillis()) {
                continue; // still being written
            }
            List<TableFile> small = e.getValue().stream().filter(f -> rewritable(f, options))
                    .sorted(Comparator.comparingLong(TableFile::modificationTime).thenComparing(TableFile::logPath))
                    .toList();
            if (small.size() >= Math.max(2, options.minFiles())) {
                partitions.add(new Partition(newest, pack(e.getKey(), small, options.targetFileBytes())));
            }
        }
        partitions.sort(Comparator.comparingLong(Partition::newest));
        List<Bin> chosen = new ArrayList<>();
        long bytes = 0;
        for (Partition partition : partitions) {
            for (Bin bin : partition.bins()) {
                if (!chosen.isEmpty() && bytes + bin.bytes() > options.maxBytesPerRun()) {
                    return new CompactionPlan(chosen);
                }
                chosen.add(bin);
                bytes += bin.bytes();
            }
        }
        return new CompactionPlan(chosen);
    }

    /** Small, without deletion vector, and below the table root (a file the log names absolutely stays). */
    private static boolean rewritable(TableFile file, CompactionOptions options) {
        return file.size() < options.smallFileBytes() && !file.deletionVector() && file.relativePath() != null;
    }

    /** Files in order into bins of at most the target size; a bin of one file would gain nothing. */
    private static List<Bin> pack(Map<String, String> partitionValues, List<TableFile> files, long target) {
        List<Bin> bins = new ArrayList<>();
        List<TableFile> current = new ArrayList<>();
        long bytes = 0;
        for (TableFile file : files) {
            if (!current.isEmpty() && bytes + file.size() > target) {
                addBin(bins, partitionValues, current, bytes);
                current = new ArrayList<>();
                bytes = 0;
            }
            current.add(file);
            bytes += file.size();
        }
        addBin(bins, partitionValues, current, bytes);
        return bins;
    }

    private static void addBin(List<Bin> bins, Map<String, String> partitionValues, List<TableFile> files, long bytes) {
        if (files.size() >= 2) {
            String first = files.get(0).relativePath();
            String directory = first.contains("/") ? first.substring(0, first.lastIndexOf('/')) : "";
            bins.add(new Bin(partitionValues, directory, List.copyOf(files), bytes));
        }
    }

    long inputBytes() {
        return bins.stream().mapToLong(Bin::bytes).sum();
    }

    int inputFiles() {
        return bins.stream().mapToInt(b -> b.files().size()).sum();
    }

    int partitions() {
        return (int) bins.stream().map(Bin::partitionValues).distinct().count();
    }

    private record Partition(long newest, List<Bin> bins) {
    }
}
