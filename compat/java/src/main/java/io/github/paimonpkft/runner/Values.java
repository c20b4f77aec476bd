package io.github.paimonpkft.runner;

import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.RowType;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.List;

/**
 * Renders Paimon values as JSON the way the Go side's dump does: strings and integers as they
 * are, DATE as an ISO date, DECIMAL as its plain string, TIMESTAMP as an ISO local date-time
 * without trailing fractional zeros, bytes as hex (in dumps) or base64 (in rows).
 */
final class Values {

    private static final DateTimeFormatter SECONDS = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss");

    private Values() {}

    static ObjectNode toJson(RowType rowType, InternalRow row) {
        ObjectNode out = Main.JSON.createObjectNode();
        List<DataField> fields = rowType.getFields();
        for (int i = 0; i < fields.size(); i++) {
            DataField f = fields.get(i);
            Object v = InternalRow.createFieldGetter(f.type(), i).getFieldOrNull(row);
            put(out, f.name(), f.type(), v, false);
        }
        return out;
    }

    /** Puts value v of type t under name; hex selects the dump's rendering of bytes. */
    static void put(ObjectNode out, String name, DataType t, Object v, boolean hex) {
        if (v == null) {
            out.putNull(name);
            return;
        }
        switch (t.getTypeRoot()) {
            case BOOLEAN:
                out.put(name, (Boolean) v);
                return;
            case TINYINT:
                out.put(name, (Byte) v);
                return;
            case SMALLINT:
                out.put(name, (Short) v);
                return;
            case INTEGER:
                out.put(name, (Integer) v);
                return;
            case BIGINT:
                out.put(name, (Long) v);
                return;
            case FLOAT:
                out.put(name, (Float) v);
                return;
            case DOUBLE:
                out.put(name, (Double) v);
                return;
            case DATE:
                out.put(name, LocalDate.ofEpochDay((Integer) v).toString());
                return;
            case DECIMAL:
                out.put(name, ((Decimal) v).toBigDecimal().toPlainString());
                return;
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                out.put(name, timestamp(((Timestamp) v).toLocalDateTime()));
                return;
            case BINARY:
            case VARBINARY:
                byte[] b = (byte[]) v;
                out.put(name, hex ? hex(b) : Base64.getEncoder().encodeToString(b));
                return;
            default:
                out.put(name, v.toString());
        }
    }

    static String timestamp(LocalDateTime t) {
        String s = t.format(SECONDS);
        int nanos = t.getNano();
        if (nanos == 0) {
            return s;
        }
        String frac = String.format("%09d", nanos).replaceAll("0+$", "");
        return s + "." + frac;
    }

    static String hex(byte[] b) {
        StringBuilder sb = new StringBuilder();
        for (byte x : b) {
            sb.append(String.format("%02x", x));
        }
        return sb.toString();
    }
}
