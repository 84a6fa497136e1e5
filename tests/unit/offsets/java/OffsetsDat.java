import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;

/**
 * Writes and reads a HashMap<byte[], byte[]> exactly as Kafka Connect's FileOffsetBackingStore does
 * (save(): new HashMap<>(), put each entry, one ObjectOutputStream.writeObject; load(): readObject,
 * require a HashMap). Arguments are hex so any bytes pass through a command line; "-" is null.
 *   java OffsetsDat write FILE KEYHEX VALUEHEX [KEYHEX VALUEHEX ...]
 *   java OffsetsDat read FILE          -> one line per entry: KEYHEX VALUEHEX
 */
public class OffsetsDat {
    private static byte[] bytes(String hex) {
        return hex.equals("-") ? null : HexFormat.of().parseHex(hex);
    }

    private static String hex(byte[] b) {
        return b == null ? "-" : HexFormat.of().formatHex(b);
    }

    @SuppressWarnings("unchecked")
    public static void main(String[] args) throws Exception {
        if (args[0].equals("write")) {
            try (ObjectOutputStream os = new ObjectOutputStream(Files.newOutputStream(Paths.get(args[1])))) {
                Map<byte[], byte[]> raw = new HashMap<>();
                for (int i = 2; i + 1 < args.length; i += 2) {
                    raw.put(bytes(args[i]), bytes(args[i + 1]));
                }
                os.writeObject(raw);
            }
        } else {
            try (ObjectInputStream is = new ObjectInputStream(Files.newInputStream(Paths.get(args[1])))) {
                Object obj = is.readObject();
                if (!(obj instanceof HashMap)) {
                    throw new IllegalStateException("Expected HashMap but found " + obj.getClass());
                }
                for (Map.Entry<byte[], byte[]> e : ((Map<byte[], byte[]>) obj).entrySet()) {
                    System.out.println(hex(e.getKey()) + " " + hex(e.getValue()));
                }
            }
        }
    }
}
