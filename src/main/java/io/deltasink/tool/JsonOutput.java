package io.deltasink.tool;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZonedDateTime;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.ToStringSerializer;

/**
 * The {@code --json} document: a result record as Jackson writes records, java.time values as
 * their ISO-8601 text (the zip ships no JSR-310 module, and a module found on the class path must
 * not change the output), pretty-printed, one document.
 */
final class JsonOutput {
    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .addModule(new SimpleModule("iso-time")
                    .addSerializer(Instant.class, ToStringSerializer.instance)
                    .addSerializer(Duration.class, ToStringSerializer.instance)
                    .addSerializer(LocalDate.class, ToStringSerializer.instance)
                    .addSerializer(LocalDateTime.class, ToStringSerializer.instance)
                    .addSerializer(OffsetDateTime.class, ToStringSerializer.instance)
                    .addSerializer(ZonedDateTime.class, ToStringSerializer.instance))
            .enable(SerializationFeature.INDENT_OUTPUT)
            .build();

    private JsonOutput() {
    }

    static String of(Object result) {
        try {
            return MAPPER.writeValueAsString(result);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write " + result.getClass().getSimpleName() + " as JSON: "
                    + e.getOriginalMessage(), e);
        }
    }
}
