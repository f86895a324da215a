package io.deltasink.write;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.api.ReadSupport;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.LocalInputFile;

/** Reads files back with parquet-hadoop's own example reader, independent of the code under test. */
final class ParquetTestFiles {
    private ParquetTestFiles() {
    }

    /**
     * The rows of a file, read through parquet's local input file: Hadoop's local file system forks
     * child processes per file opened, which makes reading thousands of files slow.
     */
    static List<Group> readRows(java.nio.file.Path file) throws IOException {
        List<Group> rows = new ArrayList<>();
        try (ParquetReader<Group> reader = new GroupReaderBuilder(new LocalInputFile(file)).build()) {
            for (Group g = reader.read(); g != null; g = reader.read()) {
                rows.add(g);
            }
        }
        return rows;
    }

    static ParquetMetadata footer(java.nio.file.Path file) throws IOException {
        try (ParquetFileReader reader = ParquetFileReader.open(
                HadoopInputFile.fromPath(hadoopPath(file), new Configuration()))) {
            return reader.getFooter();
        }
    }

    /** Regular files under {@code dir}, any depth. */
    static List<java.nio.file.Path> filesUnder(java.nio.file.Path dir) throws IOException {
        try (Stream<java.nio.file.Path> walk = Files.walk(dir)) {
            return walk.filter(Files::isRegularFile).toList();
        }
    }

    private static final class GroupReaderBuilder extends ParquetReader.Builder<Group> {
        GroupReaderBuilder(InputFile file) {
            super(file);
        }

        @Override
        protected ReadSupport<Group> getReadSupport() {
            return new GroupReadSupport();
        }
    }

    static Path hadoopPath(java.nio.file.Path file) {
        return new Path(file.toUri());
    }
}
