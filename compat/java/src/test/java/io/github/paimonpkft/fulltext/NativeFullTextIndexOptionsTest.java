package io.github.paimonpkft.fulltext;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The behaviours of Paimon's {@code NativeFullTextIndexOptionsTest} (release-2.0.0). */
class NativeFullTextIndexOptionsTest {

    @Test
    void testDefaultOptionsSerializeEmptyJson() {
        NativeFullTextIndexOptions options = NativeFullTextIndexOptions.defaults();

        assertTrue(options.toNativeOptions().isEmpty());
        assertArrayEquals("{}".getBytes(StandardCharsets.UTF_8), options.serialize());
    }

    @Test
    void testOptionsArePassedThrough() {
        Map<String, String> options = new LinkedHashMap<>();
        options.put("tokenizer", "default");
        options.put("ngram.min-gram", "2");
        options.put("custom-future-option", "future-value");

        NativeFullTextIndexOptions indexOptions = new NativeFullTextIndexOptions(options);

        // containsExactlyEntriesOf: the same entries in the same order.
        assertEquals(
                new ArrayList<>(options.entrySet()),
                new ArrayList<>(indexOptions.toNativeOptions().entrySet()));
        assertEquals(
                new ArrayList<>(options.entrySet()),
                new ArrayList<>(TestArchives.options(indexOptions.serialize()).entrySet()));
    }
}
