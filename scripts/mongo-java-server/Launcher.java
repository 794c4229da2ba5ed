import de.bwaldvogel.mongo.MongoBackend;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.MongoVersion;
import de.bwaldvogel.mongo.backend.h2.H2Backend;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import de.bwaldvogel.mongo.bson.Document;
import io.netty.channel.Channel;
import java.util.List;
import java.util.Set;
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
    return new H2Backend(file) {
      private final Object commitLock = new Object();
      private long written; // writes finished, numbered
      private long committed; // the highest write number a finished commit covers

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

  public static void main(String[] args) throws Exception {
    String host = "127.0.0.1";
    int port = 27017;
    String h2File = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--host" -> host = args[++i];
        case "--port" -> port = Integer.parseInt(args[++i]);
        case "--h2" -> h2File = args[++i];
        default -> {
          System.err.println("unknown argument " + args[i]);
          System.exit(2);
        }
      }
    }
    MongoBackend backend = h2File != null ? durableH2(h2File) : new MemoryBackend();
    backend.version(MONGO_5_0);
    MongoServer server = new MongoServer(backend);
    server.bind(host, port);
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
