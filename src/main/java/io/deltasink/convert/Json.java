package io.deltasink.convert;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.util.Collection;
import java.util.Map;

import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;

/**
 * JSON text in and out: parses text into trees (floats kept exact as BigDecimal, trailing
 * content rejected) and writes any record value (Struct, Map, List, JSON tree, scalar) as
 * compact JSON text. Each converter holds its own instance; it is safe to use from several threads.
 */
class Json {
    private static final int REASON_CHARS = 160;

    private final ObjectMapper mapper = JsonMapper.builder(JsonFactory.builder().recyclerPool(new BufferPool()).build())
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
            .build();
    /** Reads one value of a stream as the tree {@link #parse} would build for it, leaving the rest unread. */
    private final ObjectReader subtrees = mapper.reader().without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    /** Thrown when text is not JSON; the message says why, briefly. */
    static final class NotJsonException extends Exception {
        NotJsonException(String reason) {
            super(reason, null, false, false);
        }
    }

    /** Parses JSON text held in a String or UTF-8 bytes. */
    JsonNode parse(Object text) throws NotJsonException {
        try {
            JsonNode node = text instanceof byte[] b ? mapper.readTree(b) : mapper.readTree((String) text);
            if (node == null || node.isMissingNode()) {
                throw new NotJsonException("no JSON content");
            }
            return node;
        } catch (JsonProcessingException e) {
            throw new NotJsonException(shorten(e.getOriginalMessage()));
        } catch (IOException e) {
            throw new NotJsonException(shorten(String.valueOf(e.getMessage())));
        }
    }

    /**
     * A parser over JSON text held in a String or UTF-8 bytes, set up as {@link #parse} reads it;
     * the caller closes it.
     */
    JsonParser parser(Object text) throws IOException {
        return text instanceof byte[] b ? mapper.createParser(b) : mapper.createParser((String) text);
    }

    /** The value at the parser's current token as the tree {@link #parse} would hold it; the parser ends on its last token. */
    JsonNode subtree(JsonParser parser) throws IOException {
        return subtrees.readTree(parser);
    }

    private static String shorten(String reason) {
        String r = reason.replace('\n', ' ').replace('\r', ' ');
        return r.length() <= REASON_CHARS ? r : r.substring(0, REASON_CHARS) + "...";
    }

    /** A parsed JSON scalar as its Java value (String, Number, Boolean, null); objects and arrays stay trees. */
    static Object plain(Object value) {
        if (!(value instanceof JsonNode n)) {
            return value;
        }
        switch (n.getNodeType()) {
            case STRING:
                return n.textValue();
            case NUMBER:
                return n.numberValue();
            case BOOLEAN:
                return n.booleanValue();
            case NULL:
            case MISSING:
                return null;
            default:
                return n;
        }
    }

    /**
     * The text of a value as {@code raw(...)} gives it: text as is, bytes as UTF-8, anything else
     * as JSON; null for a missing value, JSON null, or text holding only JSON null (as paths
     * below it see it). Bytes that are not UTF-8 are a bad value.
     */
    String rawText(Object value) throws BadValueException {
        String text;
        if (value == null || value instanceof String) {
            text = (String) value;
        } else if (value instanceof byte[] b) {
            text = Unicode.utf8(b);
        } else if (value instanceof ByteBuffer bb) {
            text = Unicode.utf8(Coercions.bytes(bb));
        } else if (value instanceof JsonNode n) {
            if (n.isNull() || n.isMissingNode()) {
                return null;
            }
            text = n.isTextual() ? n.textValue() : n.toString();
        } else {
            return write(value, null);
        }
        return text == null || isJsonNull(text) ? null : text;
    }

    /** True for text that is JSON null, whitespace around it allowed: such a field holds no value, as JSON null. */
    private static boolean isJsonNull(String text) {
        return text.length() < 64 && text.strip().equals("null");
    }

    /** Compact JSON text of a value; {@code schema} (may be null) tells logical types of Struct fields. */
    String write(Object value, Schema schema) {
        StringWriter out = new StringWriter();
        try (JsonGenerator gen = mapper.createGenerator(out)) {
            write(gen, value, schema);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    private void write(JsonGenerator gen, Object v, Schema schema) throws IOException {
        if (v == null) {
            gen.writeNull();
            return;
        }
        String logical = schema == null ? null : schema.name();
        if (logical != null && v instanceof java.util.Date d) {
            switch (logical) {
                case Date.LOGICAL_NAME -> gen.writeString(LocalDate.ofEpochDay(Math.floorDiv(d.getTime(), 86_400_000L)).toString());
                case Time.LOGICAL_NAME -> gen.writeString(LocalTime.ofNanoOfDay(Math.floorMod(d.getTime(), 86_400_000L) * 1_000_000L).toString());
                case Timestamp.LOGICAL_NAME -> gen.writeString(Instant.ofEpochMilli(d.getTime()).toString());
                default -> gen.writeString(Instant.ofEpochMilli(d.getTime()).toString());
            }
            return;
        }
        if (Decimal.LOGICAL_NAME.equals(logical) && v instanceof BigDecimal bd) {
            gen.writeNumber(bd);
            return;
        }
        if (v instanceof Struct s) {
            gen.writeStartObject();
            for (Field f : s.schema().fields()) {
                gen.writeFieldName(f.name());
                write(gen, s.get(f), f.schema());
            }
            gen.writeEndObject();
        } else if (v instanceof Map<?, ?> m) {
            Schema valueSchema = childSchema(schema, Schema.Type.MAP);
            gen.writeStartObject();
            for (Map.Entry<?, ?> e : m.entrySet()) {
                gen.writeFieldName(String.valueOf(e.getKey()));
                write(gen, e.getValue(), valueSchema);
            }
            gen.writeEndObject();
        } else if (v instanceof Collection<?> c) {
            Schema valueSchema = childSchema(schema, Schema.Type.ARRAY);
            gen.writeStartArray();
            for (Object o : c) {
                write(gen, o, valueSchema);
            }
            gen.writeEndArray();
        } else if (v instanceof Object[] a) {
            gen.writeStartArray();
            for (Object o : a) {
                write(gen, o, null);
            }
            gen.writeEndArray();
        } else if (v instanceof JsonNode n) {
            gen.writeTree(n);
        } else {
            writeScalar(gen, v);
        }
    }

    private static Schema childSchema(Schema schema, Schema.Type type) {
        return schema != null && schema.type() == type ? schema.valueSchema() : null;
    }

    private static void writeScalar(JsonGenerator gen, Object v) throws IOException {
        if (v instanceof String s) {
            gen.writeString(s);
        } else if (v instanceof Boolean b) {
            gen.writeBoolean(b);
        } else if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) {
            gen.writeNumber(((Number) v).longValue());
        } else if (v instanceof Double d) {
            gen.writeNumber(d);
        } else if (v instanceof Float f) {
            gen.writeNumber(f);
        } else if (v instanceof BigDecimal bd) {
            gen.writeNumber(bd);
        } else if (v instanceof BigInteger bi) {
            gen.writeNumber(bi);
        } else if (v instanceof byte[] b) {
            gen.writeBinary(b);
        } else if (v instanceof ByteBuffer bb) {
            gen.writeBinary(Coercions.bytes(bb));
        } else if (v instanceof java.util.Date d) {
            gen.writeString(Instant.ofEpochMilli(d.getTime()).toString());
        } else {
            gen.writeString(v.toString());
        }
    }
}
