import de.bwaldvogel.mongo.MongoBackend;
import de.bwaldvogel.mongo.MongoCollection;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.MongoVersion;
import de.bwaldvogel.mongo.backend.ArrayFilters;
import de.bwaldvogel.mongo.backend.Index;
import de.bwaldvogel.mongo.backend.QueryResult;
import de.bwaldvogel.mongo.backend.IndexKey;
import de.bwaldvogel.mongo.backend.KeyValue;
import de.bwaldvogel.mongo.backend.Missing;
import de.bwaldvogel.mongo.backend.ValueComparator;
import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.backend.h2.H2Backend;
import de.bwaldvogel.mongo.backend.h2.H2Collection;
import de.bwaldvogel.mongo.backend.h2.H2Database;
import de.bwaldvogel.mongo.backend.h2.H2UniqueIndex;
import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import de.bwaldvogel.mongo.backend.memory.MemoryCollection;
import de.bwaldvogel.mongo.backend.memory.MemoryDatabase;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.oplog.Oplog;
import de.bwaldvogel.mongo.wire.bson.BsonDecoder;
import de.bwaldvogel.mongo.wire.bson.BsonEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import org.h2.mvstore.DataUtils;
import org.h2.mvstore.WriteBuffer;
import org.h2.mvstore.type.BasicDataType;
import org.h2.mvstore.MVMap;
import org.h2.mvstore.MVStore;
import java.lang.reflect.Constructor;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;

/**
 * Development/test MongoDB-wire server: mongo-java-server with a wire version the current Node
 * driver accepts. Run without a build step: {@code java -cp <classpath> Launcher.java
 * --port 27017 [--host 127.0.0.1] [--h2 <file>]}. Without --h2 the data lives in memory.
 * Prints "mongo-wire listening on host:port" once it accepts connections.
 *
 * <p>With --h2 every write command is committed to the file before it is answered: an
 * acknowledged write survives a kill -9 of this process (H2's own default commits about once a
 * second, which lost the last ~0.4 s of acknowledged trades in a crash probe).
 */
public class Launcher {
  /** The stock ServerVersion values report wire 8; Node driver 7 needs at least 9, so report 5.0 (wire 13). */
  static final MongoVersion MONGO_5_0 =
      new MongoVersion() {
        public List<Integer> getVersionArray() {
          return List.of(5, 0, 0);
        }

        public String toVersionString() {
          return "5.0.0";
        }

        public int getWireVersion() {
          return 13;
        }
      };

  /**
   * Threads answering connections (--threads). mongo-java-server runs each command on its connection's
   * network thread, and Netty's default is two threads per core: with 2 cores, every connection shared
   * one of 4 threads, so one long command (a minute's re-mark aggregating 100,000 trades took 8 s)
   * held a quarter of all connections, reads of other collections and the driver's heartbeats
   * included (the heartbeat timed out, the driver dropped its pool, requests failed). mongod gives
   * each connection a thread of its own; this many threads come close for the pools the service opens.
   */
  static final int NETWORK_THREADS = 128;

  /** Commands that change data; each is committed to the H2 file before its answer goes out. */
  static final Set<String> WRITES =
      Set.of(
          "insert", "update", "delete", "findandmodify", "findAndModify", "createIndexes", "dropIndexes",
          "drop", "create", "renameCollection");

  /**
   * The H2 backend, committing every write command before it is answered. Concurrent writers share
   * commits: a writer whose write a commit already covered (started after it) does not commit again.
   */
  static H2Backend durableH2(String file) {
    MVStore store = MVStore.open(file);
    boolean compact = formatOf(store, store.getMapNames().isEmpty());
    return new H2Backend(store) {
      private final Object commitLock = new Object();
      private long written; // writes finished, numbered
      private long committed; // the highest write number a finished commit covers

      @Override
      protected de.bwaldvogel.mongo.MongoDatabase openOrCreateDatabase(String name) {
        if (!compact) return super.openOrCreateDatabase(name);
        return new H2Database(name, store, getCursorRegistry()) {
          @Override
          protected MongoCollection<Object> openOrCreateCollection(String collectionName, CollectionOptions options) {
            // The stock backend's map names; documents stored as BSON (BSON_DOCUMENTS).
            String ns = getFullCollectionNamespace(collectionName);
            MVMap<Object, Document> data =
                store.openMap("databases." + ns, new MVMap.Builder<Object, Document>().valueType(BSON_DOCUMENTS));
            MVMap<String, Object> meta = store.openMap("meta." + ns);
            return new H2Collection(this, collectionName, options, data, meta, getCursorRegistry());
          }

          @Override
          protected Index<Object> openOrCreateUniqueIndex(
              String collectionName, String indexName, List<IndexKey> keys, boolean sparse) {
            // The same map name as the stock backend's, opened with the key order below.
            String mapName = getFullCollectionNamespace(collectionName) + "._index_" + indexName;
            MVMap<KeyValue, Object> map =
                store.openMap(mapName, new MVMap.Builder<KeyValue, Object>().keyType(INDEX_KEYS));
            return IdLookup.wrap(newUniqueIndex(map, indexName, keys, sparse), keys);
          }
        };
      }

      @Override
      public Document handleCommand(Channel channel, String database, String command, Document query) {
        Document answer = super.handleCommand(channel, database, command, query);
        if (WRITES.contains(command)) commitThrough(nextWrite());
        return answer;
      }

      private synchronized long nextWrite() {
        return ++written;
      }

      private synchronized long lastWrite() {
        return written;
      }

      private void commitThrough(long write) {
        synchronized (commitLock) {
          if (committed >= write) return;
          long through = lastWrite();
          commit();
          committed = through;
        }
      }
    };
  }

  /** Names the storage format of a file this launcher created (absent: the stock backend's). */
  static final String FORMAT_MAP = "launcher.format";

  /**
   * Whether this file is in the compact format: documents stored as BSON (BSON_DOCUMENTS) and
   * unique-index keys kept in value order (INDEX_KEYS). The stock H2 backend stores both with Java
   * serialisation: each document written is serialised on its own, class descriptors and all, and
   * every comparison of a unique-index search serialises both keys. Under the trade load those two
   * were most of this server's CPU (a profile of 2026-12-01), and every acknowledged write commits
   * its pages. A new file is created compact and says so; a file written before keeps the stock
   * format, which its trees are sorted and its pages encoded in.
   */
  static boolean formatOf(MVStore store, boolean newFile) {
    MVMap<String, String> marker = store.openMap(FORMAT_MAP);
    if (newFile) {
      marker.put("documents", "bson");
      marker.put("unique-keys", "value-order");
      store.commit();
    }
    return "bson".equals(marker.get("documents"));
  }

  /** Documents as the wire carries them (BSON): what the server decoded is what it stores back. */
  static final BasicDataType<Document> BSON_DOCUMENTS =
      new BasicDataType<>() {
        @Override
        public int getMemory(Document d) {
          // H2 splits pages by this estimate; a rough figure keeps a page near its target size.
          return 64 + 48 * d.size();
        }

        /**
         * A page is encoded at commit while other connections' writes go on, and mongo-java-server
         * updates a stored document in place before it puts it back into its map: an encoding that
         * meets that edit ends in a ConcurrentModificationException (seen in CI: the failed commit
         * answered an unrelated update with an error). The encoding is then taken again. What such
         * a commit writes may show an unacknowledged edit half done, but the edit's own put marks
         * the page changed again, and the write is acknowledged only after a commit begun after
         * that put, which writes the page whole.
         */
        @Override
        public void write(WriteBuffer buff, Document d) {
          for (int attempt = 1; ; attempt++) {
            try {
              byte[] bytes = encode(d);
              buff.putVarInt(bytes.length).put(bytes);
              return;
            } catch (java.util.ConcurrentModificationException e) {
              if (attempt == 1_000) throw e;
              Thread.onSpinWait();
            }
          }
        }

        private byte[] encode(Document d) {
          ByteBuf buf = Unpooled.buffer();
          try {
            BsonEncoder.encodeDocument(d, buf);
            byte[] bytes = new byte[buf.readableBytes()];
            buf.readBytes(bytes);
            return bytes;
          } finally {
            buf.release();
          }
        }

        @Override
        public Document read(ByteBuffer buff) {
          int length = DataUtils.readVarInt(buff);
          byte[] bytes = new byte[length];
          buff.get(bytes);
          return BsonDecoder.decodeBson(Unpooled.wrappedBuffer(bytes));
        }

        @Override
        public Document[] createStorage(int size) {
          return new Document[size];
        }
      };

  /**
   * Unique-index keys compared by value, in MongoDB's order (ValueComparator, element by element,
   * shorter first on a tie), and stored as BSON (a document of the key's values, "0", "1", …; a
   * missing field as "m0", …): no serialisation per comparison or per key written. Values MongoDB
   * counts as equal (1 and 1.0) are one key, as in a MongoDB unique index.
   */
  static final BasicDataType<KeyValue> INDEX_KEYS =
      new BasicDataType<>() {
        private final Comparator<Object> values = ValueComparator.ascWithoutListHandling();

        @Override
        public int compare(KeyValue x, KeyValue y) {
          int n = Math.min(x.size(), y.size());
          for (int i = 0; i < n; i++) {
            int c = values.compare(x.get(i), y.get(i));
            if (c != 0) return c;
          }
          return Integer.compare(x.size(), y.size());
        }

        @Override
        public int getMemory(KeyValue k) {
          return 32 + 24 * k.size();
        }

        @Override
        public void write(WriteBuffer buff, KeyValue k) {
          Document d = new Document();
          int i = 0;
          for (Object v : k) {
            if (v instanceof Missing) d.put("m" + i, null);
            else d.put(String.valueOf(i), v);
            i++;
          }
          BSON_DOCUMENTS.write(buff, d);
        }

        @Override
        public KeyValue read(ByteBuffer buff) {
          Document d = BSON_DOCUMENTS.read(buff);
          List<Object> key = new java.util.ArrayList<>(d.size());
          for (Map.Entry<String, Object> e : d.entrySet())
            key.add(e.getKey().startsWith("m") ? Missing.getInstance() : e.getValue());
          return new KeyValue(key);
        }

        @Override
        public KeyValue[] createStorage(int size) {
          return new KeyValue[size];
        }
      };

  /** H2UniqueIndex's constructor is package-private. */
  static Index<Object> newUniqueIndex(
      MVMap<KeyValue, Object> map, String name, List<IndexKey> keys, boolean sparse) {
    try {
      Constructor<H2UniqueIndex> c =
          H2UniqueIndex.class.getDeclaredConstructor(MVMap.class, String.class, List.class, boolean.class);
      c.setAccessible(true);
      return c.newInstance(map, name, keys, sparse);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("mongo-java-server's H2UniqueIndex changed", e);
    }
  }

  /**
   * The `_id` index, which also serves a query naming `_id` (a string or `$in` strings) beside other
   * fields. mongo-java-server's unique index serves only a query on exactly its fields, so
   * `{_id: id, status: 'filled'}` (how the service reads a trade it expects in a state, and guards
   * its updates) went to a secondary index on `status` (every filled trade as a candidate) or, on
   * the H2 file, to a scan of the collection: per trade, a cost that grew with everybody's history.
   * The candidates are the named ids; the server matches them against the whole query as always.
   */
  static final class IdLookup<P> extends Index<P> {
    private final Index<P> inner;

    IdLookup(Index<P> inner) {
      super(inner.getName(), inner.getKeys(), false);
      this.inner = inner;
    }

    static <P> Index<P> wrap(Index<P> index, List<IndexKey> keys) {
      return keys.size() == 1 && "_id".equals(keys.get(0).getKey()) ? new IdLookup<>(index) : index;
    }

    /** `{_id: <the query's _id>}` when the query names ids other fields beside; null otherwise. */
    private static Document idsOnly(Document query) {
      if (query.size() < 2 || !query.containsKey("_id")) return null;
      Object value = query.get("_id");
      if (value instanceof String) return new Document("_id", value);
      if (value instanceof Document d
          && d.size() == 1
          && d.get("$in") instanceof Collection<?> in
          && in.stream().allMatch(v -> v instanceof String)) return new Document("_id", d);
      return null;
    }

    @Override
    public boolean canHandle(Document query) {
      return inner.canHandle(query) || idsOnly(query) != null;
    }

    @Override
    public Iterable<P> getPositions(Document query) {
      if (inner.canHandle(query)) return inner.getPositions(query);
      return inner.getPositions(idsOnly(query));
    }

    @Override
    public P getPosition(Document document) {
      return inner.getPosition(document);
    }

    @Override
    public void checkAdd(Document document, MongoCollection<P> collection) {
      inner.checkAdd(document, collection);
    }

    @Override
    public void add(Document document, P position, MongoCollection<P> collection) {
      inner.add(document, position, collection);
    }

    @Override
    public P remove(Document document) {
      return inner.remove(document);
    }

    @Override
    public long getCount() {
      return inner.getCount();
    }

    @Override
    public long getDataSize() {
      return inner.getDataSize();
    }

    @Override
    public void checkUpdate(Document oldDocument, Document newDocument, MongoCollection<P> collection) {
      inner.checkUpdate(oldDocument, newDocument, collection);
    }

    @Override
    public void updateInPlace(Document oldDocument, Document newDocument, P position, MongoCollection<P> collection)
        throws de.bwaldvogel.mongo.exception.KeyConstraintError {
      inner.updateInPlace(oldDocument, newDocument, position, collection);
    }

    @Override
    public void drop() {
      inner.drop();
    }

    @Override
    public boolean isUnique() {
      return inner.isUnique();
    }

    @Override
    public Document toIndexDescription() {
      return inner.toIndexDescription();
    }
  }

  /**
   * A secondary (non-unique) index of the memory backend, which mongo-java-server does not have:
   * it creates an empty placeholder, so every query without a unique index on exactly its fields
   * scans the whole collection, and an agent's trades, positions or ledger got slower with every
   * other agent's history. This one keeps, for the index's first field, each string value's
   * documents (by position, in storage order), and serves any query that has that field equal to a
   * string (or {@code $in} strings): the candidates are then matched against the whole query, sorted
   * and limited by the server as before, so results are exactly those of the scan. What MongoDB's
   * planner does with the same declared index (a bounded read by its leading field), without range
   * or sort support: enough to make per-agent and per-market reads independent of everybody else's.
   *
   * <p>mongo-java-server takes the first index whose {@code canHandle} is true, so a query naming an
   * agent and a status was served by whichever of the two indexes came first: by `{status, …}`,
   * every filled trade, each matched against the query while the collection stays locked (minutes
   * at 100,000 trades with an `$in` of 500 agents). So an index says it can serve a query only when
   * no other secondary index of its collection would give fewer candidates (ties: the first
   * created), as MongoDB's planner prefers the more selective index. The collection's lock
   * serialises every query and write, so the siblings' counts are read without their own locks.
   */
  static final class SecondaryIndex extends Index<Integer> {
    private final List<SecondaryIndex> siblings;
    private final String field;
    private final Index<Integer> firstKey;
    private final Map<Object, TreeSet<Integer>> byValue = new HashMap<>();
    private final Map<Object, Integer> byId = new HashMap<>();

    SecondaryIndex(String name, List<IndexKey> keys, boolean sparse, List<SecondaryIndex> siblings) {
      super(name, keys, sparse);
      this.siblings = siblings;
      siblings.add(this);
      field = keys.get(0).getKey();
      // Computes the first field's values the way the server's own indexes do (arrays: one per element).
      firstKey = new de.bwaldvogel.mongo.backend.EmptyIndex<>(name, List.of(keys.get(0)));
    }

    private Set<Object> valuesOf(Document document) {
      Set<Object> values = new HashSet<>();
      for (KeyValue kv : firstKey.getKeyValues(document)) values.add(kv.normalized().get(0));
      return values;
    }

    /**
     * The document's id as its index entry names it: the bare normalised value, not a KeyValue
     * (which holds a list and its array: ~64 bytes per document per index, 128 MB of the history
     * stack's heap at 100,000 trades).
     */
    private static Object idOf(Document document) {
      return new KeyValue(document.get("_id")).normalized().get(0);
    }

    /** The query's wanted values of the first field, or null when this index cannot serve it. */
    private List<Object> wanted(Document query) {
      if (field.contains(".") || !query.containsKey(field)) return null;
      Object value = query.get(field);
      if (value instanceof String) return List.of(new KeyValue(value).normalized().get(0));
      if (value instanceof Document d && d.size() == 1 && d.get("$in") instanceof Collection<?> in) {
        List<Object> values = new java.util.ArrayList<>();
        for (Object v : in) {
          if (!(v instanceof String)) return null;
          values.add(new KeyValue(v).normalized().get(0));
        }
        return values;
      }
      return null;
    }

    /** How many documents this index would hand over for `query`; -1 when it cannot serve it. */
    private long candidates(Document query) {
      List<Object> values = wanted(query);
      if (values == null) return -1;
      long n = 0;
      for (Object v : values) {
        TreeSet<Integer> set = byValue.get(v);
        if (set != null) n += set.size();
      }
      return n;
    }

    @Override
    public boolean canHandle(Document query) {
      long mine = candidates(query);
      if (mine < 0) return false;
      for (SecondaryIndex other : siblings) {
        if (other == this) break; // an earlier sibling wins a tie; a later one must be smaller
        long theirs = other.candidates(query);
        if (theirs >= 0 && theirs <= mine) return false;
      }
      for (int i = siblings.indexOf(this) + 1; i < siblings.size(); i++) {
        long theirs = siblings.get(i).candidates(query);
        if (theirs >= 0 && theirs < mine) return false;
      }
      return true;
    }

    @Override
    public synchronized Iterable<Integer> getPositions(Document query) {
      List<Object> values = wanted(query);
      TreeSet<Integer> positions = new TreeSet<>();
      for (Object v : values) {
        TreeSet<Integer> set = byValue.get(v);
        if (set != null) positions.addAll(set);
      }
      return new java.util.ArrayList<>(positions);
    }

    @Override
    public Integer getPosition(Document document) {
      return null;
    }

    @Override
    public void checkAdd(Document document, MongoCollection<Integer> collection) {}

    @Override
    public synchronized void add(Document document, Integer position, MongoCollection<Integer> collection) {
      byId.put(idOf(document), position);
      for (Object v : valuesOf(document)) byValue.computeIfAbsent(v, k -> new TreeSet<>()).add(position);
    }

    @Override
    public synchronized Integer remove(Document document) {
      Integer position = byId.remove(idOf(document));
      if (position == null) return null;
      for (Object v : valuesOf(document)) unlink(v, position);
      return position;
    }

    private void unlink(Object value, Integer position) {
      TreeSet<Integer> set = byValue.get(value);
      if (set == null) return;
      set.remove(position);
      if (set.isEmpty()) byValue.remove(value);
    }

    @Override
    public void checkUpdate(Document oldDocument, Document newDocument, MongoCollection<Integer> collection) {}

    @Override
    public synchronized void updateInPlace(
        Document oldDocument, Document newDocument, Integer position, MongoCollection<Integer> collection) {
      Set<Object> before = valuesOf(oldDocument);
      Set<Object> after = valuesOf(newDocument);
      if (before.equals(after)) return;
      for (Object v : before) if (!after.contains(v)) unlink(v, position);
      for (Object v : after) byValue.computeIfAbsent(v, k -> new TreeSet<>()).add(position);
    }

    @Override
    public synchronized long getCount() {
      return byId.size();
    }

    @Override
    public long getDataSize() {
      return 0;
    }

    @Override
    public synchronized void drop() {
      byValue.clear();
      byId.clear();
      siblings.remove(this);
    }
  }

  /**
   * The memory backend with SecondaryIndex in place of mongo-java-server's empty placeholder, and
   * documents stored with shared field names (CompactCollection).
   */
  static MemoryBackend indexedMemory() {
    return new MemoryBackend() {
      @Override
      public MemoryDatabase openOrCreateDatabase(String name) {
        return new MemoryDatabase(name, getCursorRegistry()) {
          @Override
          protected MemoryCollection openOrCreateCollection(String collectionName, CollectionOptions options) {
            return new CompactCollection(this, collectionName, options, getCursorRegistry());
          }

          /** Each collection's secondary indexes, in creation order (SecondaryIndex.canHandle). */
          private final Map<String, List<SecondaryIndex>> byCollection = new HashMap<>();

          @Override
          protected Index<Integer> openOrCreateUniqueIndex(
              String collectionName, String indexName, List<IndexKey> keys, boolean sparse) {
            return IdLookup.wrap(super.openOrCreateUniqueIndex(collectionName, indexName, keys, sparse), keys);
          }

          @Override
          protected synchronized Index<Integer> openOrCreateSecondaryIndex(
              String collectionName, String indexName, List<IndexKey> keys, boolean sparse) {
            List<SecondaryIndex> siblings =
                byCollection.computeIfAbsent(collectionName, k -> new java.util.concurrent.CopyOnWriteArrayList<>());
            return new SecondaryIndex(indexName, keys, sparse, siblings);
          }
        };
      }
    };
  }

  /**
   * A memory collection whose documents share one String per field name. Every decoded message
   * brings its own copy of each name, and the memory backend keeps the decoded document as it came:
   * on the bench's history stack (100,000 trades, ~910,000 documents and subdocuments) 12 million
   * map entries held 15 million Strings, 367 MB of the 1.5 GB live heap, most of them the same few
   * hundred names; 1,000,000 trades did not fit the heap. A document is stored with interned names,
   * and after an update (whose new fields come from a decoded message) a copy with interned names
   * replaces it at its position. A copy, not an edit in place: a query's answer holds the stored
   * documents themselves and is encoded after the collection's lock is released, so an edit that
   * emptied and refilled a document could be seen half done. Indexes name positions, not documents.
   */
  static final class CompactCollection extends MemoryCollection {
    private static final java.lang.reflect.Field DOCUMENTS;

    static {
      try {
        DOCUMENTS = MemoryCollection.class.getDeclaredField("documents");
        DOCUMENTS.setAccessible(true);
      } catch (NoSuchFieldException e) {
        throw new IllegalStateException("mongo-java-server's MemoryCollection changed", e);
      }
    }

    private final List<Document> documents;

    @SuppressWarnings("unchecked")
    CompactCollection(MongoDatabase database, String name, CollectionOptions options, CursorRegistry cursors) {
      super(database, name, options, cursors);
      try {
        documents = (List<Document>) DOCUMENTS.get(this);
      } catch (IllegalAccessException e) {
        throw new IllegalStateException(e);
      }
    }

    @Override
    protected Integer addDocumentInternal(Document document) {
      return super.addDocumentInternal(compact(document));
    }

    /**
     * Set while this thread runs a write that edits what it matched (an update, a findAndModify):
     * its query then hands out copies, so that the edit, which mongo-java-server makes in place
     * (fields removed, then put one by one), happens on a copy no reader holds; handleUpdate puts
     * the finished copy in the stored document's place. Without it a reader encoding its answer
     * outside the lock saw a document half edited (a chaos of updates under load: `n` set, the
     * field set with it missing).
     */
    private static final ThreadLocal<Boolean> WRITING = ThreadLocal.withInitial(() -> Boolean.FALSE);

    @Override
    public Document updateDocuments(
        Document selector, Document update, ArrayFilters arrayFilters, boolean multi, boolean upsert, Oplog oplog) {
      WRITING.set(Boolean.TRUE);
      try {
        return super.updateDocuments(selector, update, arrayFilters, multi, upsert, oplog);
      } finally {
        WRITING.set(Boolean.FALSE);
      }
    }

    @Override
    public Document findAndModify(Document query) {
      WRITING.set(Boolean.TRUE);
      try {
        return super.findAndModify(query);
      } finally {
        WRITING.set(Boolean.FALSE);
      }
    }

    @Override
    protected QueryResult queryDocuments(
        Document query, Document orderBy, int skip, int limit, int batchSize, Document fieldSelector) {
      QueryResult matched = super.queryDocuments(query, orderBy, skip, limit, batchSize, fieldSelector);
      if (!WRITING.get()) return matched;
      // Top-level copies suffice: the edit replaces top-level values, it never changes a nested one.
      List<Document> copies = new java.util.ArrayList<>();
      for (Document document : matched) copies.add(new Document(document));
      return new QueryResult(copies, matched.getCursorId());
    }

    @Override
    protected void handleUpdate(Integer position, Document oldDocument, Document newDocument) {
      documents.set(position, compact(newDocument));
    }

    /** The document itself when every name in it is interned already, else a copy whose names are. */
    static Document compact(Document document) {
      int size = document.size(), i = 0;
      String[] names = new String[size];
      Object[] values = new Object[size];
      boolean same = true;
      for (Map.Entry<String, Object> entry : document.entrySet()) {
        names[i] = entry.getKey().intern();
        values[i] = compactValue(entry.getValue());
        same &= names[i] == entry.getKey() && values[i] == entry.getValue();
        i++;
      }
      if (same) return document;
      Document copy = new Document();
      for (i = 0; i < size; i++) copy.put(names[i], values[i]);
      return copy;
    }

    private static Object compactValue(Object value) {
      if (value instanceof Document) return compact((Document) value);
      if (!(value instanceof List)) return value;
      List<?> list = (List<?>) value;
      List<Object> copy = null;
      for (int i = 0; i < list.size(); i++) {
        Object element = list.get(i), compacted = compactValue(element);
        if (compacted != element && copy == null) copy = new java.util.ArrayList<>(list);
        if (copy != null) copy.set(i, compacted);
      }
      return copy == null ? value : copy;
    }
  }

  /**
   * With MONGO_WIRE_SLOW_LOG set (a file), every message that runs MONGO_WIRE_SLOW_MS (default 1000)
   * or longer is appended there with its database, the command and its document (cut at 2,000
   * characters): once while it still runs (a scan that never ends is the one that holds a
   * collection: the client logs only what finished) and once when it ends. A development aid: the
   * client's own slow-command log names the fields of a filter, this names the query the server ran.
   */
  static final class SlowCommands {
    private record Running(long startedNanos, String what) {}

    private static final Map<Thread, Running> running = new java.util.concurrent.ConcurrentHashMap<>();

    static MongoBackend logging(MongoBackend backend, String file) {
      long thresholdMs = Long.parseLong(System.getenv().getOrDefault("MONGO_WIRE_SLOW_MS", "1000"));
      java.io.PrintWriter out;
      try {
        out = new java.io.PrintWriter(new java.io.FileWriter(file, true), true);
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      Set<Running> reported = java.util.Collections.newSetFromMap(new java.util.concurrent.ConcurrentHashMap<>());
      Thread watch =
          new Thread(
              () -> {
                while (true) {
                  try {
                    Thread.sleep(Math.max(100, thresholdMs / 2));
                  } catch (InterruptedException e) {
                    return;
                  }
                  long now = System.nanoTime();
                  for (Running r : running.values())
                    if ((now - r.startedNanos) / 1_000_000 >= thresholdMs && reported.add(r))
                      out.println(java.time.Instant.now() + " RUNNING " + (now - r.startedNanos) / 1_000_000 + " ms " + r.what);
                  reported.retainAll(running.values());
                }
              },
              "slow-command-watch");
      watch.setDaemon(true);
      watch.start();
      return (MongoBackend)
          java.lang.reflect.Proxy.newProxyInstance(
              MongoBackend.class.getClassLoader(),
              new Class<?>[] {MongoBackend.class},
              (proxy, method, args) -> {
                // The wire handler enters through handleMessage (commands) and handleQuery (legacy queries).
                if (!method.getName().startsWith("handle") || method.getName().equals("handleClose"))
                  return invoke(backend, method, args);
                StringBuilder text = new StringBuilder(method.getName());
                for (Object arg : args) if (!(arg instanceof Channel)) text.append(' ').append(arg);
                Running r =
                    new Running(
                        System.nanoTime(), text.length() > 2000 ? text.substring(0, 2000) + "…" : text.toString());
                running.put(Thread.currentThread(), r);
                try {
                  return invoke(backend, method, args);
                } finally {
                  running.remove(Thread.currentThread());
                  long ms = (System.nanoTime() - r.startedNanos) / 1_000_000;
                  if (ms >= thresholdMs) out.println(java.time.Instant.now() + " DONE " + ms + " ms " + r.what);
                }
              });
    }

    private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
      try {
        return method.invoke(target, args);
      } catch (java.lang.reflect.InvocationTargetException e) {
        throw e.getCause();
      }
    }
  }

  public static void main(String[] args) throws Exception {
    String host = "127.0.0.1";
    int port = 27017;
    String h2File = null;
    int threads = NETWORK_THREADS;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--host" -> host = args[++i];
        case "--port" -> port = Integer.parseInt(args[++i]);
        case "--h2" -> h2File = args[++i];
        case "--threads" -> threads = Integer.parseInt(args[++i]);
        default -> {
          System.err.println("unknown argument " + args[i]);
          System.exit(2);
        }
      }
    }
    MongoBackend backend = h2File != null ? durableH2(h2File) : indexedMemory();
    backend.version(MONGO_5_0);
    String slowLog = System.getenv("MONGO_WIRE_SLOW_LOG");
    MongoServer server = new MongoServer(slowLog == null || slowLog.isEmpty() ? backend : SlowCommands.logging(backend, slowLog));
    server.bind(new InetSocketAddress(host, port), 1, threads);
    CountDownLatch stopped = new CountDownLatch(1);
    // SIGTERM/SIGINT run this hook: closing the backend commits the H2 file, so no acknowledged write is lost.
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  server.shutdownNow();
                  backend.close();
                  stopped.countDown();
                }));
    System.out.println("mongo-wire listening on " + host + ":" + port + (h2File != null ? " (h2 " + h2File + ")" : " (memory)"));
    System.out.flush();
    stopped.await();
  }
}
