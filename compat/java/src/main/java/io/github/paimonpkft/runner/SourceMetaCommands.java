package io.github.paimonpkft.runner;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.paimon.index.pk.PrimaryKeyIndexSourceFile;
import org.apache.paimon.index.pk.PrimaryKeyIndexSourceMeta;

import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/** source-meta-encode / source-meta-decode: PrimaryKeyIndexSourceMeta bytes as Java makes them. */
final class SourceMetaCommands {

    private SourceMetaCommands() {}

    static void register(Map<String, Main.Command> commands) {
        commands.put("source-meta-encode", SourceMetaCommands::encode);
        commands.put("source-meta-decode", SourceMetaCommands::decode);
    }

    /** args: level, files [{fileName, rowCount}]. Result: {bytes (base64)}. */
    private static JsonNode encode(JsonNode args) {
        List<PrimaryKeyIndexSourceFile> files = new ArrayList<>();
        for (JsonNode f : args.path("files")) {
            files.add(new PrimaryKeyIndexSourceFile(f.path("fileName").asText(), f.path("rowCount").asLong()));
        }
        byte[] bytes = new PrimaryKeyIndexSourceMeta(args.path("level").asInt(), files).serialize();
        return Main.JSON.createObjectNode().put("bytes", Base64.getEncoder().encodeToString(bytes));
    }

    /** args: bytes (base64). Result: {level, files [{fileName, rowCount}]}. */
    private static JsonNode decode(JsonNode args) {
        PrimaryKeyIndexSourceMeta meta =
                PrimaryKeyIndexSourceMeta.deserialize(Base64.getDecoder().decode(args.path("bytes").asText()));
        ObjectNode out = Main.JSON.createObjectNode().put("level", meta.dataLevel());
        ArrayNode files = out.putArray("files");
        meta.sourceFiles().forEach(f -> files.addObject().put("fileName", f.fileName()).put("rowCount", f.rowCount()));
        return out;
    }
}
