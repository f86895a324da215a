package io.deltasink.tool;

/**
 * A failure as one line: the message of the exception, then that of its root cause when it says
 * something more (an S3A error wrapped in Kernel's, an I/O error in a runtime one). Line breaks
 * inside messages are folded, so stderr holds exactly one line per failure.
 */
final class ErrorLine {
    private ErrorLine() {
    }

    static String of(Throwable e) {
        String line = message(e);
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        if (root != e) {
            String rootMessage = message(root);
            if (!line.contains(rootMessage)) {
                line = line + ": " + rootMessage;
            }
        }
        return line.replaceAll("\\s*[\\r\\n]+\\s*", " ").trim();
    }

    private static String message(Throwable e) {
        String message = e.getMessage();
        return message == null || message.isBlank() ? e.getClass().getSimpleName() : message;
    }
}
