import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.runtime.standalone.StandaloneConfig;
import org.apache.kafka.connect.storage.FileOffsetBackingStore;

/**
 * Drives the real org.apache.kafka.connect.storage.FileOffsetBackingStore (what Debezium uses).
 *   java ConnectFileStore get FILE KEYJSON          -> prints the stored value (or "null")
 *   java ConnectFileStore set FILE KEYJSON VALUEJSON -> stores it and stops the store (which saves)
 */
public class ConnectFileStore {
    public static void main(String[] args) throws Exception {
        Map<String, String> props = new HashMap<>();
        props.put("bootstrap.servers", "localhost:9092");
        props.put("key.converter", "org.apache.kafka.connect.json.JsonConverter");
        props.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
        props.put("offset.storage.file.filename", args[1]);
        JsonConverter keyConverter = new JsonConverter();
        keyConverter.configure(Map.of("schemas.enable", "false"), true);
        FileOffsetBackingStore store = new FileOffsetBackingStore(keyConverter);
        store.configure(new StandaloneConfig(props));
        store.start();
        ByteBuffer key = ByteBuffer.wrap(args[2].getBytes(StandardCharsets.UTF_8));
        if (args[0].equals("get")) {
            ByteBuffer value = store.get(List.of(key)).get().get(key);
            System.out.println(value == null ? "null" : StandardCharsets.UTF_8.decode(value));
        } else {
            ByteBuffer value = ByteBuffer.wrap(args[3].getBytes(StandardCharsets.UTF_8));
            store.set(Map.of(key, value), null).get();
        }
        store.stop();
    }
}
