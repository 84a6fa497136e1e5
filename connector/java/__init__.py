"""What emulates the JVM byte for byte: HashMap/HashSet iteration order, Float/Double.toString and
Jackson string text, Kafka's murmur2 partitioner, Java object serialization (Connect offsets files), epoch days as
java.time and java.util.GregorianCalendar count them."""
