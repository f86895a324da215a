package io.deltasink.convert;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.DateTimeException;
import java.time.LocalDate;
import java.util.Locale;

import org.junit.jupiter.api.Test;

/**
 * ISO dates count their days without a {@link LocalDate} for the days every month has (1 to 28):
 * every day of the years 0000 to 9999, as text, gives {@code LocalDate}'s epoch day and the same
 * microseconds as a timestamp; days and months no date has keep {@code LocalDate}'s messages.
 */
class TimestampDaysTest {
    @Test
    void everyDayOfYearsZeroToNineThousandNineHundredNinetyNineCountsAsLocalDateDoes() throws Exception {
        for (LocalDate d = LocalDate.of(0, 1, 1); d.getYear() <= 9999; d = d.plusDays(1)) {
            assertEquals(d.toEpochDay(), Timestamps.epochDay(d.getYear(), d.getMonthValue(), d.getDayOfMonth()),
                    d.toString());
        }
        for (int year = 0; year <= 9999; year += year < 2100 ? 1 : 37) {
            for (int month = 1; month <= 12; month++) {
                for (int day : new int[] {1, 13, 28, 29, 30, 31}) {
                    String text = String.format(Locale.ROOT, "%04d-%02d-%02dT23:59:59.999999Z", year, month, day);
                    LocalDate date;
                    try {
                        date = LocalDate.of(year, month, day);
                    } catch (DateTimeException e) {
                        BadValueException thrown = assertThrows(BadValueException.class, () -> Timestamps.parseMicros(text));
                        assertEquals("not a valid date: " + e.getMessage(), thrown.getMessage());
                        continue;
                    }
                    assertEquals((date.toEpochDay() + 1) * Timestamps.MICROS_PER_DAY - 1, Timestamps.parseMicros(text), text);
                }
            }
        }
    }

    @Test
    void monthsAndDaysNoDateHasKeepTheirMessages() {
        for (String text : new String[] {"2026-00-10", "2026-13-01", "2026-06-00", "2026-02-29", "2026-04-31", "2026-99-99"}) {
            String expected;
            try {
                LocalDate.of(Integer.parseInt(text.substring(0, 4)), Integer.parseInt(text.substring(5, 7)),
                        Integer.parseInt(text.substring(8, 10)));
                throw new AssertionError(text + " is a date");
            } catch (DateTimeException e) {
                expected = "not a valid date: " + e.getMessage();
            }
            BadValueException thrown = assertThrows(BadValueException.class, () -> Timestamps.parseMicros(text));
            assertEquals(expected, thrown.getMessage(), text);
        }
    }
}
