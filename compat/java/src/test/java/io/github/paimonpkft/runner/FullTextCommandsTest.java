package io.github.paimonpkft.runner;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The full-text runner commands, through whatever serves the full-text index type. */
class FullTextCommandsTest {

    @TempDir File dir;

    private final Map<String, Main.Command> commands = new LinkedHashMap<>();

    @BeforeEach
    void setup() {
        FullTextCommands.register(commands);
    }

    private JsonNode run(String cmd, JsonNode args) throws Exception {
        return commands.get(cmd).run(args);
    }

    private ObjectNode buildArgs(String... texts) {
        ObjectNode args = Main.JSON.createObjectNode().put("dir", dir.getPath());
        ArrayNode t = args.putArray("texts");
        for (String s : texts) {
            if (s == null) {
                t.addNull();
            } else {
                t.add(s);
            }
        }
        args.putArray("options");
        return args;
    }

    @Test
    void testBuildAndSearchRankByScoreThenRowId() throws Exception {
        JsonNode built = run("archive-build", buildArgs("paimon", null, "paimon lake", "paimon"));
        assertEquals(4, built.get("rowCount").asLong());
        assertEquals("{}", built.get("indexMeta").asText());
        assertTrue(built.get("fileName").asText().startsWith("full-text-"));

        ObjectNode search =
                Main.JSON.createObjectNode()
                        .put("path", new File(dir, built.get("fileName").asText()).getPath())
                        .put("query", "{\"match\":{\"query\":\"paimon\"}}")
                        .put("limit", 10);
        JsonNode hits = run("archive-search", search);
        assertEquals("[0,3,2]", hits.get("rowIds").toString());
        assertEquals(hits.get("scores").get(0).floatValue(), hits.get("scores").get(1).floatValue());
        assertTrue(hits.get("scores").get(1).floatValue() > hits.get("scores").get(2).floatValue());
    }

    @Test
    void testFailedBuildLeavesNoFileAndCarriesTheEngineText() {
        ObjectNode args = buildArgs("a");
        args.withArray("options").addObject().put("key", "tokenizer").put("value", "bogus");
        RuntimeException e = assertThrows(RuntimeException.class, () -> run("archive-build", args));
        assertTrue(e.getMessage().contains("unsupported tokenizer 'bogus'"), e.getMessage());
        assertEquals(0, dir.list().length);
    }

    @Test
    void testPlainWordsBecomeAMatchQuery() {
        assertEquals(
                "{\"match\":{\"query\":\"say \\\"hi\\\" 中文\"}}",
                FullTextCommands.engineQuery("say \"hi\" 中文"));
        String json = "{\"match_phrase\":{\"query\":\"a b\"}}";
        assertEquals(json, FullTextCommands.engineQuery(json));
        assertThrows(IllegalArgumentException.class, () -> FullTextCommands.engineQuery("  "));
    }
}
