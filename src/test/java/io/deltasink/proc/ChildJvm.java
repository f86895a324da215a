package io.deltasink.proc;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A benchmark's main run in a child JVM that answers with one line starting with {@value #RESULT};
 * the rest of its output is shown only when it fails. The class path goes in an argument file
 * (a long class path is too long for some command lines).
 */
public final class ChildJvm {
    /** The prefix of the child's answer line. */
    public static final String RESULT = "RESULT ";

    private ChildJvm() {
    }

    /** Writes {@code -cp <classPath>} to {@code argFile}, quoted as Java's argument files read it. */
    public static void writeClassPathArgFile(Path argFile, String classPath) throws IOException {
        Files.writeString(argFile, "-cp " + quote(classPath) + "\n");
    }

    private static String quote(String arg) {
        return "\"" + arg.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    /**
     * Runs {@code mainClass} with {@code args} in a JVM of the launch's JDK and class path, with
     * {@code jvmOptions} before it, and returns the text after {@value #RESULT} of its answer line.
     *
     * @throws IllegalStateException with the child's output when it exits with an error or gives no answer
     */
    public static String result(WorkerProcess.Launch launch, List<String> jvmOptions, String mainClass,
                                List<String> args) throws IOException, InterruptedException {
        Path argFile = Files.createTempFile("child-jvm-", ".args");
        try {
            writeClassPathArgFile(argFile, launch.classPath());
            List<String> cmd = new ArrayList<>();
            cmd.add(launch.javaHome().resolve("bin").resolve("java").toString());
            cmd.addAll(jvmOptions);
            cmd.add("@" + argFile);
            cmd.add(mainClass);
            cmd.addAll(args);
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            StringBuilder out = new StringBuilder();
            String result = null;
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                    if (line.startsWith(RESULT)) {
                        result = line.substring(RESULT.length());
                    } else {
                        out.append(line).append('\n');
                    }
                }
            }
            int exit = p.waitFor();
            if (result == null || exit != 0) {
                throw new IllegalStateException("the child JVM " + mainClass + " " + args + " failed (exit " + exit
                        + "):\n" + out);
            }
            return result;
        } finally {
            Files.deleteIfExists(argFile);
        }
    }
}
