package io.github.paimonpkft.runner;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.paimon.options.ConfigOption;
import org.apache.paimon.options.FallbackKey;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * options: every option key a table schema may carry in the Paimon build on the class path, found
 * by reflection over the ConfigOption fields of the option classes Paimon reads table options
 * through.
 */
final class OptionsCommands {

    /**
     * The option classes whose keys a table's options may hold: CoreOptions (what the table store
     * itself reads), the file index and format options it passes on to file writers, the Iceberg
     * compatibility options its commit reads, the global index options, and the Flink connector
     * options (the bundle the runner runs on is Paimon's Flink bundle; Flink reads them from the
     * table's options). Catalog option classes (CatalogOptions, the REST, JDBC and Hive catalog
     * options, FlinkCatalogOptions) configure a catalog, not a table, and are not listed. A class
     * absent from the build is reported in "missing" rather than failing the command.
     */
    static final List<String> TABLE_OPTION_CLASSES =
            List.of(
                    "org.apache.paimon.CoreOptions",
                    "org.apache.paimon.fileindex.FileIndexOptions",
                    "org.apache.paimon.format.OrcOptions",
                    "org.apache.paimon.format.csv.CsvOptions",
                    "org.apache.paimon.format.json.JsonOptions",
                    "org.apache.paimon.format.text.TextOptions",
                    "org.apache.paimon.iceberg.IcebergOptions",
                    "org.apache.paimon.globalindex.btree.BTreeIndexOptions",
                    "org.apache.paimon.globalindex.bitmap.BitmapGlobalIndexOptions",
                    "org.apache.paimon.globalindex.sorted.SortedIndexOptions",
                    "org.apache.paimon.flink.FlinkConnectorOptions");

    private OptionsCommands() {}

    static void register(Map<String, Main.Command> commands) {
        commands.put("options", OptionsCommands::options);
    }

    /**
     * args: none. Result: {options: [{key, class, type, default (absent when none), fallbackKeys
     * [...]}], missing: [class names not on the class path]}, in field declaration order per class.
     */
    private static JsonNode options(JsonNode args) throws Exception {
        ObjectNode out = Main.JSON.createObjectNode();
        ArrayNode options = out.putArray("options");
        ArrayNode missing = out.putArray("missing");
        Field clazzField = ConfigOption.class.getDeclaredField("clazz");
        clazzField.setAccessible(true);
        for (String name : TABLE_OPTION_CLASSES) {
            Class<?> holder;
            try {
                holder = Class.forName(name);
            } catch (ClassNotFoundException | NoClassDefFoundError e) {
                missing.add(name);
                continue;
            }
            for (Field f : holder.getDeclaredFields()) {
                if (!Modifier.isStatic(f.getModifiers()) || !ConfigOption.class.isAssignableFrom(f.getType())) {
                    continue;
                }
                f.setAccessible(true);
                ConfigOption<?> option = (ConfigOption<?>) f.get(null);
                ObjectNode one = options.addObject();
                one.put("key", option.key());
                one.put("class", holder.getSimpleName());
                one.put("type", ((Class<?>) clazzField.get(option)).getSimpleName());
                if (option.hasDefaultValue()) {
                    one.put("default", render(option.defaultValue()));
                }
                ArrayNode fallback = one.putArray("fallbackKeys");
                for (FallbackKey k : option.fallbackKeys()) {
                    fallback.add(k.getKey());
                }
            }
        }
        return out;
    }

    /** The default as a table option would spell it. */
    private static String render(Object value) {
        if (value instanceof Duration) {
            return ((Duration) value).toMillis() + " ms";
        }
        return String.valueOf(value);
    }
}
