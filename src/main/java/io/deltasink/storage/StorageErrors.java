package io.deltasink.storage;

import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.file.AccessDeniedException;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Locale;
import java.util.Set;

import org.apache.hadoop.fs.s3a.UnknownStoreException;

import io.deltasink.config.DeltaSinkConfig;
import software.amazon.awssdk.awscore.exception.AwsServiceException;

/**
 * What a storage failure means for the user, decided from its cause chain, and the one place
 * where the messages about it are written. Permanent problems (access denied, no such bucket,
 * an endpoint host that does not resolve, a store without conditional writes) name the setting
 * to fix; everything else (connection refused or reset, timeouts, HTTP 5xx, throttling) is
 * transient. Messages name the table and settings, never a key's value; only a table on S3 is
 * talked about as on S3, any other by its path, as on a local or network file system.
 */
public final class StorageErrors {
    /** What went wrong, and which setting a user fixes for it (null: nothing to fix, retry). */
    public enum Problem {
        ACCESS_DENIED(true),
        NO_SUCH_BUCKET(true),
        UNKNOWN_HOST(true),
        NO_CONDITIONAL_WRITES(true),
        UNREACHABLE(false),
        TRANSIENT(false);

        private final boolean permanent;

        Problem(boolean permanent) {
            this.permanent = permanent;
        }

        public boolean permanent() {
            return permanent;
        }
    }

    private static final Set<String> ACCESS_CODES = Set.of("AccessDenied", "SignatureDoesNotMatch",
            "InvalidAccessKeyId", "InvalidToken", "ExpiredToken", "AllAccessDisabled", "AccountProblem");
    /** S3A's translation of connection failures it gave up on; matched by name (no public type). */
    private static final Set<String> CONNECT_FAILURE_CLASSES = Set.of(
            "org.apache.http.conn.ConnectTimeoutException", "org.apache.http.conn.HttpHostConnectException",
            "org.apache.hadoop.net.ConnectTimeoutException");

    private final String tableUri;
    private final String endpoint;
    private final String region;
    private final boolean keysGiven;

    /**
     * @param tableUri  the normalized table location
     * @param endpoint  the s3.endpoint value (empty: AWS)
     * @param region    the s3.region value (may be empty)
     * @param keysGiven whether s3.access.key / s3.secret.key are set (else the AWS default chain is used)
     */
    public StorageErrors(String tableUri, String endpoint, String region, boolean keysGiven) {
        this.tableUri = tableUri;
        this.endpoint = endpoint;
        this.region = region;
        this.keysGiven = keysGiven;
    }

    public static StorageErrors of(DeltaSinkConfig config) {
        return new StorageErrors(StorageSettings.normalize(config.tableLocationRoot()), config.s3Endpoint(),
                config.s3Region(), !config.s3AccessKey().isEmpty());
    }

    /** The normalized table location the messages name (with a table per topic: the folder of the tables). */
    public String tableUri() {
        return tableUri;
    }

    /** What the failure is; {@link Problem#TRANSIENT} when nothing in its cause chain is recognised. */
    public static Problem classify(Throwable failure) {
        Problem found = null;
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable t = failure; t != null && seen.add(t); t = t.getCause()) {
            Problem p = classifyOne(t);
            if (p != null && p.permanent()) {
                return p;
            }
            if (found == null) {
                found = p;
            }
        }
        return found == null ? Problem.TRANSIENT : found;
    }

    private static Problem classifyOne(Throwable t) {
        if (t instanceof AccessDeniedException) {
            return Problem.ACCESS_DENIED;
        }
        if (t instanceof UnknownStoreException) {
            return Problem.NO_SUCH_BUCKET;
        }
        if (t instanceof UnknownHostException) {
            return Problem.UNKNOWN_HOST;
        }
        if (t instanceof AwsServiceException s) {
            String code = s.awsErrorDetails() == null ? null : s.awsErrorDetails().errorCode();
            if (s.statusCode() == 403 || (code != null && ACCESS_CODES.contains(code))) {
                return Problem.ACCESS_DENIED;
            }
            if ("NoSuchBucket".equals(code)) {
                return Problem.NO_SUCH_BUCKET;
            }
            if (s.statusCode() == 501 || "NotImplemented".equals(code)) {
                return Problem.NO_CONDITIONAL_WRITES;
            }
            return Problem.TRANSIENT;
        }
        if (t instanceof ConnectException || t instanceof NoRouteToHostException
                || t instanceof SocketTimeoutException || CONNECT_FAILURE_CLASSES.contains(t.getClass().getName())) {
            return Problem.UNREACHABLE;
        }
        return null;
    }

    /** The S3 error code in the cause chain (e.g. SignatureDoesNotMatch), or null. */
    static String errorCode(Throwable failure) {
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable t = failure; t != null && seen.add(t); t = t.getCause()) {
            if (t instanceof AwsServiceException s && s.awsErrorDetails() != null
                    && s.awsErrorDetails().errorCode() != null) {
                return s.awsErrorDetails().errorCode();
            }
        }
        return null;
    }

    /** The setting a user changes for this failure (for Connector.validate), or null for a transient one. */
    public String setting(Throwable failure) {
        return switch (classify(failure)) {
            case ACCESS_DENIED -> !keysGiven || "InvalidAccessKeyId".equals(errorCode(failure))
                    ? DeltaSinkConfig.S3_ACCESS_KEY : DeltaSinkConfig.S3_SECRET_KEY;
            case NO_SUCH_BUCKET -> DeltaSinkConfig.TABLE_LOCATION;
            case UNKNOWN_HOST, UNREACHABLE -> onS3(tableUri) ? DeltaSinkConfig.S3_ENDPOINT : DeltaSinkConfig.TABLE_LOCATION;
            case NO_CONDITIONAL_WRITES -> DeltaSinkConfig.S3_CONDITIONAL_WRITES;
            case TRANSIENT -> null;
        };
    }

    /**
     * What happened to the table and which setting to fix (for a permanent problem) or why it retries.
     * A table on S3 is talked about as on S3 ({@code s3.endpoint}); any other, as on a local or
     * network file system, named by its path.
     */
    public String message(Throwable failure) {
        Problem problem = classify(failure);
        if (!onS3(tableUri)) {
            switch (problem) {
                case UNREACHABLE:
                    return "Lost contact with the file system of table " + location() + " (" + rootCause(failure)
                            + "): the local or network file system (a mount) holding " + DeltaSinkConfig.TABLE_LOCATION
                            + " did not answer in time; check that it is mounted and reachable";
                case UNKNOWN_HOST:
                    return "Cannot resolve the host " + hostOf(failure) + " of the file system of table " + location()
                            + ": check " + DeltaSinkConfig.TABLE_LOCATION + " and the mount of its file system";
                case TRANSIENT:
                    return "File system failure on table " + location() + " (" + rootCause(failure) + ")";
                default:
                    break;
            }
        }
        return switch (problem) {
            case ACCESS_DENIED -> onS3(tableUri) ? accessDenied(errorCode(failure))
                    : "Permission denied writing table " + tableUri + " (" + rootCause(failure) + "): give the "
                    + "worker's user read and write access to " + DeltaSinkConfig.TABLE_LOCATION;
            case NO_SUCH_BUCKET -> "Bucket '" + bucket() + "' of " + DeltaSinkConfig.TABLE_LOCATION + "=" + tableUri
                    + " does not exist at " + where() + ": create the bucket or fix " + DeltaSinkConfig.TABLE_LOCATION
                    + " (or " + DeltaSinkConfig.S3_ENDPOINT + " / " + DeltaSinkConfig.S3_REGION
                    + " if the bucket is served elsewhere)";
            case UNKNOWN_HOST -> "Cannot resolve the S3 host " + hostOf(failure) + " of " + where() + " for table "
                    + tableUri + ": fix " + DeltaSinkConfig.S3_ENDPOINT;
            case NO_CONDITIONAL_WRITES -> "The S3 store of table " + tableUri + " does not support conditional writes "
                    + "(HTTP 501 NotImplemented for a commit file created with If-None-Match): use a store that "
                    + "supports them (AWS S3, MinIO), or set " + DeltaSinkConfig.S3_CONDITIONAL_WRITES
                    + "=false and let only one connector task in one worker write this table";
            case UNREACHABLE -> "Cannot reach S3 at " + where() + " for table " + tableUri + " ("
                    + rootCause(failure) + "); check " + DeltaSinkConfig.S3_ENDPOINT + " and that the server is up";
            case TRANSIENT -> "Storage failure on table " + tableUri + " (" + rootCause(failure) + ")";
        };
    }

    private String accessDenied(String code) {
        String suffix = code == null ? "" : ", " + code;
        if (!keysGiven) {
            return "S3 refused access to table " + tableUri + " (HTTP 403" + suffix + "): no "
                    + DeltaSinkConfig.S3_ACCESS_KEY + " / " + DeltaSinkConfig.S3_SECRET_KEY
                    + " are set, so the AWS default credential chain was used (environment, profile, instance or "
                    + "container role); set " + DeltaSinkConfig.S3_ACCESS_KEY + " and " + DeltaSinkConfig.S3_SECRET_KEY
                    + " or give those credentials access to the bucket";
        }
        String fix = "InvalidAccessKeyId".equals(code)
                ? DeltaSinkConfig.S3_ACCESS_KEY + " is not known to the store"
                : "SignatureDoesNotMatch".equals(code)
                ? DeltaSinkConfig.S3_SECRET_KEY + " does not match " + DeltaSinkConfig.S3_ACCESS_KEY
                : "check " + DeltaSinkConfig.S3_ACCESS_KEY + " and " + DeltaSinkConfig.S3_SECRET_KEY
                + " and that the key may read and write the bucket";
        return "S3 refused access to table " + tableUri + " (HTTP 403" + suffix + "): " + fix + "; fix "
                + DeltaSinkConfig.S3_ACCESS_KEY + " / " + DeltaSinkConfig.S3_SECRET_KEY;
    }

    /** A local table by its path, any other by its URI. */
    private String location() {
        try {
            URI uri = URI.create(tableUri);
            return "file".equalsIgnoreCase(uri.getScheme()) && uri.getPath() != null ? uri.getPath() : tableUri;
        } catch (IllegalArgumentException e) {
            return tableUri;
        }
    }

    private String where() {
        if (!endpoint.isEmpty()) {
            return DeltaSinkConfig.S3_ENDPOINT + "=" + endpoint;
        }
        return region.isEmpty() ? "the AWS S3 endpoint" : "the AWS S3 endpoint of " + DeltaSinkConfig.S3_REGION + "=" + region;
    }

    private String bucket() {
        try {
            String host = URI.create(tableUri).getHost();
            return host == null ? tableUri : host;
        } catch (IllegalArgumentException e) {
            return tableUri;
        }
    }

    /** The host the innermost UnknownHostException names (outer ones are S3A's wrappers). */
    private static String hostOf(Throwable failure) {
        String host = "(unknown)";
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable t = failure; t != null && seen.add(t); t = t.getCause()) {
            if (t instanceof UnknownHostException && t.getMessage() != null) {
                host = "'" + t.getMessage().split("[:\\s]", 2)[0] + "'";
            }
        }
        return host;
    }

    /** The innermost cause as "Type: message", for logs; S3A and SDK messages carry no credentials. */
    private static String rootCause(Throwable failure) {
        Throwable root = failure;
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        while (root.getCause() != null && seen.add(root)) {
            root = root.getCause();
        }
        String message = root.getMessage() == null ? "" : ": " + root.getMessage();
        if (message.length() > 200) {
            message = message.substring(0, 200) + "...";
        }
        return root.getClass().getSimpleName() + message;
    }

    /** Whether the location is on S3 (an s3a/s3/s3n URI). */
    public static boolean onS3(String tableUri) {
        int colon = tableUri.indexOf(':');
        return colon > 0 && StorageSettings.S3_SCHEMES.contains(tableUri.substring(0, colon).toLowerCase(Locale.ROOT));
    }
}
