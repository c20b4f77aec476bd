package io.github.paimonpkft.fulltext;

import org.apache.paimon.utils.JsonSerdeUtil;

import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Stand-in for Paimon's {@code org.apache.paimon.fulltext.index.NativeFullTextIndexOptions}
 * (module {@code paimon-full-text} 2.0.0, not served by the Maven registry reachable here): the
 * engine options of one full-text index, i.e. the index's {@code full-text.*} options with the
 * prefix removed. They go to the engine unchanged (the engine validates them) and are recorded
 * as the archive's index meta: the flat JSON object of the options, in insertion order.
 */
public class NativeFullTextIndexOptions {

    /** The prefix of the table/index options that belong to the engine. */
    public static final String FULL_TEXT_PREFIX = "full-text.";

    private final Map<String, String> options;

    public NativeFullTextIndexOptions(Map<String, String> options) {
        this.options =
                Collections.unmodifiableMap(
                        new LinkedHashMap<>(Objects.requireNonNull(options, "options")));
    }

    /** No options: the engine's defaults. */
    public static NativeFullTextIndexOptions defaults() {
        return new NativeFullTextIndexOptions(Collections.emptyMap());
    }

    /** The options as the engine receives them. */
    public Map<String, String> toNativeOptions() {
        return options;
    }

    /** The index meta: the options as a flat JSON object, UTF-8. */
    public byte[] serialize() {
        return JsonSerdeUtil.toFlatJson(options).getBytes(StandardCharsets.UTF_8);
    }
}
