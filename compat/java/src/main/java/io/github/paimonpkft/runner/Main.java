package io.github.paimonpkft.runner;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The pkft Java runner. {@code serve} reads one JSON request per line on stdin ({@code {"id",
 * "cmd", "args"}}) and writes one response per line on stdout ({@code {"id", "ok", "result"}} or
 * {@code {"id", "ok": false, "error"}}); any other first argument runs that command once with the
 * JSON arguments given as the second argument. Nothing but responses is written to stdout.
 */
public final class Main {

    /** One runner command: JSON arguments in, a JSON result out. */
    interface Command {
        JsonNode run(JsonNode args) throws Exception;
    }

    static final ObjectMapper JSON = new ObjectMapper();

    private final Map<String, Command> commands = new LinkedHashMap<>();

    private Main() {
        commands.put("ping", args -> ping());
        TableCommands.register(commands);
        StorageCommands.register(commands);
        DumpCommand.register(commands);
        SourceMetaCommands.register(commands);
        MaintainerCommands.register(commands);
        FullTextCommands.register(commands);
        IndexFileCommands.register(commands);
        MinorCompactCommands.register(commands);
        MaintainCommands.register(commands);
        BenchCommands.register(commands);
        SearchBenchCommands.register(commands);
        BucketCommands.register(commands);
        PickCommands.register(commands);
        OptionsCommands.register(commands);
        SortedIndexCommands.register(commands);
        PredicateReadCommands.register(commands);
        OrphanCommands.register(commands);
        ChangelogCommands.register(commands);
        ExpireCommands.register(commands);
        ManifestValuesCommands.register(commands);
    }

    /** The version of the runner protocol this runner speaks (compat/PROTOCOL.md, "Versions"). */
    static final String PROTOCOL_VERSION = "1.0";

    /** ping: who this runner is, the protocol version it speaks, the Paimon version on its class path, and its commands. */
    private JsonNode ping() {
        ObjectNode out = JSON.createObjectNode().put("runner", "java").put("protocolVersion", PROTOCOL_VERSION);
        out.put("paimonVersion", String.valueOf(org.apache.paimon.Snapshot.class.getPackage().getImplementationVersion()));
        out.put("fullTextIndexer", FullTextCommands.indexerFactory());
        commands.keySet().forEach(out.putArray("commands")::add);
        return out;
    }

    public static void main(String[] argv) throws Exception {
        // Paimon and its dependencies may print to System.out; keep stdout for the protocol.
        PrintStream protocol = new PrintStream(System.out, true, "UTF-8");
        System.setOut(System.err);
        Main main = new Main();
        if (argv.length >= 1 && argv[0].equals("serve")) {
            main.serve(protocol);
            return;
        }
        if (argv.length >= 1 && main.commands.containsKey(argv[0])) {
            JsonNode args = argv.length >= 2 ? JSON.readTree(argv[1]) : JSON.createObjectNode();
            protocol.println(
                    JSON.writerWithDefaultPrettyPrinter()
                            .writeValueAsString(main.commands.get(argv[0]).run(args)));
            return;
        }
        System.err.println("usage: pkft-runner serve | pkft-runner COMMAND [ARGS_JSON]");
        System.err.println("commands: " + main.commands.keySet());
        System.exit(2);
    }

    private void serve(PrintStream out) throws Exception {
        BufferedReader in =
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.trim().isEmpty()) {
                continue;
            }
            out.println(JSON.writeValueAsString(handle(line)));
            out.flush();
        }
    }

    private ObjectNode handle(String line) {
        ObjectNode response = JSON.createObjectNode();
        try {
            JsonNode request = JSON.readTree(line);
            response.set("id", request.get("id"));
            String cmd = request.path("cmd").asText();
            Command command = commands.get(cmd);
            if (command == null) {
                throw new IllegalArgumentException("unknown command: " + cmd);
            }
            JsonNode args = request.has("args") ? request.get("args") : JSON.createObjectNode();
            response.put("ok", true);
            response.set("result", command.run(args));
        } catch (Throwable t) {
            StringWriter trace = new StringWriter();
            t.printStackTrace(new PrintWriter(trace));
            System.err.println(trace);
            response.put("ok", false);
            response.remove("result");
            response.put("error", describe(t));
        }
        return response;
    }

    /** The error of a failed command: the exception and, after "caused by", its causes (at most five). */
    static String describe(Throwable t) {
        StringBuilder b = new StringBuilder(t.getClass().getSimpleName()).append(": ").append(t.getMessage());
        int depth = 0;
        for (Throwable c = t.getCause(); c != null && c != t && depth < 5; c = c.getCause(), depth++) {
            b.append("; caused by ").append(c.getClass().getSimpleName()).append(": ").append(c.getMessage());
        }
        return b.toString();
    }
}
