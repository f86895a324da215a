package io.deltasink.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.file.AccessDeniedException;

import org.apache.hadoop.fs.s3a.AWSServiceThrottledException;
import org.apache.hadoop.fs.s3a.AWSStatus500Exception;
import org.apache.hadoop.fs.s3a.AWSUnsupportedFeatureException;
import org.apache.hadoop.fs.s3a.UnknownStoreException;
import org.junit.jupiter.api.Test;

import io.delta.kernel.exceptions.KernelEngineException;
import io.deltasink.storage.StorageErrors.Problem;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Classification of storage failures by their cause chain, with the exception types S3A and the
 * AWS SDK really throw (wrapped as Kernel wraps them), and the messages naming the setting to fix.
 */
class StorageErrorsTest {
    static final String TABLE = "s3a://sensor-data/delta/events";
    final StorageErrors withKeys = new StorageErrors(TABLE, "http://minio:9000", "us-east-1", true);
    final StorageErrors withoutKeys = new StorageErrors(TABLE, "", "eu-central-1", false);

    private static S3Exception s3(int status, String code) {
        return (S3Exception) S3Exception.builder().statusCode(status).message(code)
                .awsErrorDetails(AwsErrorDetails.builder().errorCode(code).errorMessage(code).build()).build();
    }

    /** As Kernel's default engine hands an S3A failure up. */
    private static RuntimeException kernel(IOException e) {
        return new KernelEngineException("reading " + TABLE, new UncheckedIOException(e));
    }

    @Test
    void permanentProblemsAreFoundAnywhereInTheChain() {
        assertEquals(Problem.ACCESS_DENIED, StorageErrors.classify(kernel(new AccessDeniedException(TABLE))));
        assertEquals(Problem.ACCESS_DENIED, StorageErrors.classify(new RuntimeException(s3(403, "SignatureDoesNotMatch"))));
        assertEquals(Problem.ACCESS_DENIED, StorageErrors.classify(new RuntimeException(s3(400, "InvalidAccessKeyId"))));
        assertEquals(Problem.NO_SUCH_BUCKET, StorageErrors.classify(kernel(new UnknownStoreException(TABLE, "no bucket"))));
        assertEquals(Problem.NO_SUCH_BUCKET, StorageErrors.classify(new RuntimeException(s3(404, "NoSuchBucket"))));
        assertEquals(Problem.UNKNOWN_HOST, StorageErrors.classify(kernel(new IOException(new UnknownHostException("x.invalid")))));
        assertEquals(Problem.NO_CONDITIONAL_WRITES, StorageErrors.classify(
                kernel(new AWSUnsupportedFeatureException("put", s3(501, "NotImplemented")))));
    }

    @Test
    void blipsAreTransient() {
        assertEquals(Problem.UNREACHABLE, StorageErrors.classify(kernel(new IOException(new ConnectException("refused")))));
        assertEquals(Problem.UNREACHABLE, StorageErrors.classify(new SocketTimeoutException("read timed out")));
        assertEquals(Problem.TRANSIENT, StorageErrors.classify(kernel(new AWSStatus500Exception("put", s3(500, "InternalError")))));
        assertEquals(Problem.TRANSIENT, StorageErrors.classify(kernel(new AWSServiceThrottledException("put", s3(503, "SlowDown")))));
        assertEquals(Problem.TRANSIENT, StorageErrors.classify(new IOException("injected")));
        for (Problem p : new Problem[] {Problem.UNREACHABLE, Problem.TRANSIENT}) {
            assertFalse(p.permanent(), p.name());
        }
    }

    @Test
    void accessDeniedNamesTheKeysOrTheDefaultChain() {
        RuntimeException signature = kernel(new AccessDeniedException(TABLE, null, "403"));
        RuntimeException wrongSecret = new RuntimeException(new IOException(s3(403, "SignatureDoesNotMatch")));
        assertEquals("s3.secret.key", withKeys.setting(wrongSecret));
        String m = withKeys.message(wrongSecret);
        assertTrue(m.contains(TABLE) && m.contains("s3.secret.key") && m.contains("SignatureDoesNotMatch"), m);

        RuntimeException unknownKey = new RuntimeException(s3(403, "InvalidAccessKeyId"));
        assertEquals("s3.access.key", withKeys.setting(unknownKey));
        assertTrue(withKeys.message(unknownKey).contains("s3.access.key is not known"), withKeys.message(unknownKey));

        assertEquals("s3.access.key", withoutKeys.setting(signature));
        assertTrue(withoutKeys.message(signature).contains("AWS default credential chain"), withoutKeys.message(signature));
    }

    @Test
    void otherMessagesNameTheirSetting() {
        RuntimeException bucket = kernel(new UnknownStoreException(TABLE, "no bucket"));
        assertEquals("table.location", withKeys.setting(bucket));
        String m = withKeys.message(bucket);
        assertTrue(m.contains("'sensor-data'") && m.contains("table.location") && m.contains("s3.endpoint=http://minio:9000"), m);
        assertTrue(withoutKeys.message(bucket).contains("s3.region=eu-central-1"), withoutKeys.message(bucket));

        RuntimeException host = kernel(new UnknownHostException("getFileStatus on " + TABLE));
        host.getCause().getCause().initCause(new UnknownHostException("minio"));
        assertEquals("s3.endpoint", withKeys.setting(host));
        assertTrue(withKeys.message(host).contains("'minio'") && withKeys.message(host).contains("fix s3.endpoint"),
                withKeys.message(host));

        RuntimeException notImplemented = kernel(new AWSUnsupportedFeatureException("put", s3(501, "NotImplemented")));
        assertEquals("s3.conditional.writes", withKeys.setting(notImplemented));
        assertTrue(withKeys.message(notImplemented).contains("s3.conditional.writes=false"), withKeys.message(notImplemented));

        RuntimeException refused = kernel(new IOException(new ConnectException("Connection refused")));
        assertEquals("s3.endpoint", withKeys.setting(refused));
        assertTrue(withKeys.message(refused).startsWith("Cannot reach S3 at s3.endpoint=http://minio:9000"),
                withKeys.message(refused));
        assertNull(withKeys.setting(kernel(new AWSStatus500Exception("put", s3(500, "InternalError")))));
    }

    @Test
    void aLocalPermissionProblemDoesNotTalkAboutS3() {
        StorageErrors local = new StorageErrors("file:/data/events", "", "", false);
        String m = local.message(kernel(new AccessDeniedException("/data/events/_delta_log")));
        assertTrue(m.startsWith("Permission denied writing table file:/data/events"), m);
    }

    @Test
    void aLocalTableThatTimesOutIsAFileSystemProblemNotS3() {
        StorageErrors local = new StorageErrors("file:/mnt/nas/events", "", "us-east-1", false);
        for (IOException cause : new IOException[] {new SocketTimeoutException("Read timed out"),
                new ConnectException("Connection refused"), new IOException(new UnknownHostException("nas"))}) {
            RuntimeException failure = kernel(cause);
            String m = local.message(failure);
            assertTrue(m.contains("/mnt/nas/events") && m.contains("file system") && m.contains("mount"), m);
            assertFalse(m.contains("S3") || m.contains("s3."), m);
            assertEquals("table.location", local.setting(failure), m);
        }
        String reset = local.message(kernel(new java.net.SocketException("Connection reset")));
        assertTrue(reset.contains("/mnt/nas/events") && reset.toLowerCase(java.util.Locale.ROOT).contains("file system"), reset);
    }
}
