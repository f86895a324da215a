package io.deltasink.write;

import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.FileMetaData;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;

import io.deltasink.model.Column;
import io.deltasink.model.DataFile;

/**
 * Copies the rows of Parquet files of one table partition into new files near a target size, for
 * compaction. Rows go through parquet-hadoop's record API ({@link Group}) with each input's own
 * file schema, so every value (INT96 and millisecond timestamps, decimals of any physical type,
 * binary, nested columns, nulls) is written back as the same Parquet value; only the encoding,
 * the compression and the row groups change. Memory: one input row group being read and one output
 * row group being filled, whatever the size of the partition.
 *
 * <p>An output file holds rows of inputs with one file schema and one set of key-value metadata
 * (e.g. Spark's date rebase markers); an input that differs starts a new file. Statistics come
 * from the new file's footer ({@link FooterStats}) for the leading table columns whose Parquet type
 * is the one this connector writes; other columns get none, which readers treat as unknown.
 *
 * <p>Not thread-safe; one instance per compaction run.
 */
public final class ParquetRewriter {
    /** Parquet adds this key itself; copying an input's value would clash with it. */
    private static final String WRITER_MODEL_KEY = "writer.model.name";

    private final Path root;
    private final Configuration conf;
    private final FileSystem fs;
    private final WriterSettings settings;
    private final List<Column> statsColumns;
    private final Clock clock;
    private final SharedCompressor compressor;
    private int fileCounter;

    /**
     * @param root         the table root
     * @param settings     codec, row group, page and target file size of the new files
     * @param statsColumns the table's leading data columns that get statistics, in table order
     * @param clock        gives the new files' modification times
     */
    public ParquetRewriter(Path root, Configuration conf, WriterSettings settings, List<Column> statsColumns,
                           Clock clock) throws IOException {
        this.root = Objects.requireNonNull(root, "root");
        this.conf = Objects.requireNonNull(conf, "conf");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.statsColumns = List.copyOf(statsColumns);
        this.clock = Objects.requireNonNull(clock, "clock");
        this.fs = root.getFileSystem(conf);
        this.compressor = new SharedCompressor(conf, settings.codec());
    }

    /**
     * Writes the rows of {@code inputs} into new files in {@code directory}. On failure every new
     * file is deleted before the exception is thrown.
     *
     * @param directory       the folder below the table root, as storage names it ("" for the root)
     * @param partitionValues the inputs' partition values, carried to the new files
     * @param inputs          the input files below the table root, as storage names them
     * @return the new files, with statistics; their rows together are exactly the inputs' rows
     * @throws IOException when an input cannot be read or an output written
     */
    public List<DataFile> rewrite(String directory, Map<String, String> partitionValues, List<String> inputs)
            throws IOException {
        List<DataFile> written = new ArrayList<>();
        List<Path> created = new ArrayList<>();
        Output output = null;
        long rowsIn = 0;
        try {
            for (String input : inputs) {
                Path path = new Path(root, input);
                FileMetaData meta;
                try (ParquetFileReader footer = ParquetFileReader.open(HadoopInputFile.fromPath(path, conf))) {
                    meta = footer.getFileMetaData();
                    for (BlockMetaData block : footer.getFooter().getBlocks()) {
                        rowsIn += block.getRowCount();
                    }
                }
                Map<String, String> metadata = new HashMap<>(meta.getKeyValueMetaData());
                metadata.remove(WRITER_MODEL_KEY);
                if (output != null && !output.holds(meta.getSchema(), metadata)) {
                    written.add(output.close());
                    output = null;
                }
                try (ParquetReader<Group> reader = ParquetReader.builder(new GroupReadSupport(), path)
                        .withConf(conf).build()) {
                    for (Group row = reader.read(); row != null; row = reader.read()) {
                        if (output == null) {
                            output = open(directory, partitionValues, meta.getSchema(), metadata);
                            created.add(output.path);
                        }
                        output.write(row);
                        if (output.size() >= settings.targetFileSizeBytes()) {
                            written.add(output.close());
                            output = null;
                        }
                    }
                }
            }
            if (output != null) {
                written.add(output.close());
                output = null;
            }
            long rowsOut = written.stream().mapToLong(f -> f.stats().numRecords()).sum();
            if (rowsOut != rowsIn) {
                throw new IOException("rewrote " + rowsOut + " rows, but the footers of the inputs count " + rowsIn);
            }
            return written;
        } catch (IOException | RuntimeException e) {
            if (output != null) {
                output.abort();
            }
            delete(created, e);
            throw e;
        }
    }

    /** Deletes files this rewriter wrote, e.g. when their commit gave up. */
    public void delete(List<DataFile> files) throws IOException {
        IOException failure = new IOException("could not delete every new file");
        delete(files.stream().map(f -> new Path(root, f.path())).toList(), failure);
        if (failure.getSuppressed().length > 0) {
            throw failure;
        }
    }

    private void delete(List<Path> paths, Exception failure) {
        for (Path path : paths) {
            try {
                fs.delete(path, false);
            } catch (IOException | RuntimeException e) {
                failure.addSuppressed(e);
            }
        }
    }

    private Output open(String directory, Map<String, String> partitionValues, MessageType schema,
                        Map<String, String> metadata) throws IOException {
        String relative = (directory.isEmpty() ? "" : directory + "/")
                + settings.dataFileName(fileCounter++, UUID.randomUUID());
        CountingOutputFile file = new CountingOutputFile(fs, new Path(root, relative));
        ParquetWriter<Group> writer = settings.configure(ExampleParquetWriter.builder(file)
                .withType(schema)
                .withExtraMetaData(metadata), compressor, conf).build();
        return new Output(new Path(root, relative), relative, partitionValues, schema, metadata, file, writer);
    }

    /**
     * The leading table columns whose Parquet field in {@code schema} is at the same position with the
     * type this connector writes for them: {@link FooterStats} reads their footer statistics as
     * values of that type. Stops at the first column that differs.
     */
    List<Column> statsColumnsOf(MessageType schema) {
        List<Column> columns = new ArrayList<>();
        for (int i = 0; i < statsColumns.size() && i < schema.getFieldCount(); i++) {
            Column column = statsColumns.get(i);
            Type field = schema.getType(i);
            if (column.type().isNested()) {
                break; // nested columns get no statistics (see NestedRecords)
            }
            PrimitiveType expected = ParquetSchemas.field(column);
            if (!field.isPrimitive() || !field.getName().equals(column.name())
                    || field.asPrimitiveType().getPrimitiveTypeName() != expected.getPrimitiveTypeName()
                    || field.asPrimitiveType().getTypeLength() != expected.getTypeLength()
                    || !Objects.equals(field.getLogicalTypeAnnotation(), expected.getLogicalTypeAnnotation())) {
                break;
            }
            columns.add(column);
        }
        return columns;
    }

    /** One new file being written. */
    private final class Output {
        final Path path;
        final String relative;
        final Map<String, String> partitionValues;
        final MessageType schema;
        final Map<String, String> metadata;
        final CountingOutputFile file;
        final ParquetWriter<Group> writer;

        Output(Path path, String relative, Map<String, String> partitionValues, MessageType schema,
               Map<String, String> metadata, CountingOutputFile file, ParquetWriter<Group> writer) {
            this.path = path;
            this.relative = relative;
            this.partitionValues = partitionValues;
            this.schema = schema;
            this.metadata = metadata;
            this.file = file;
            this.writer = writer;
        }

        boolean holds(MessageType otherSchema, Map<String, String> otherMetadata) {
            return schema.equals(otherSchema) && metadata.equals(otherMetadata);
        }

        void write(Group row) throws IOException {
            writer.write(row);
        }

        long size() {
            return writer.getDataSize();
        }

        DataFile close() throws IOException {
            writer.close();
            DataFile.FileStats stats = FooterStats.of(writer.getFooter(), statsColumnsOf(schema));
            return new DataFile(relative, partitionValues, file.bytesWritten(), clock.millis(), stats);
        }

        void abort() {
            try {
                writer.close();
            } catch (IOException | RuntimeException e) {
                // the file is deleted next
            }
        }
    }
}
