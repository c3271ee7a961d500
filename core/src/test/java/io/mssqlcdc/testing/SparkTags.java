package io.mssqlcdc.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.platform.commons.annotation.Testable;
import org.junit.platform.commons.support.AnnotationSupport;
import org.junit.platform.commons.support.HierarchyTraversalMode;
import org.junit.platform.commons.support.ReflectionSupport;

/**
 * Which test classes must carry {@code @Tag("spark")}. The Spark 4.1 leg of CI runs only the classes with that tag
 * (the root POM's {@code spark-4.1} profile sets Surefire's groups): the plain-logic tests ran in the first leg and
 * behave the same whatever Spark is on the classpath. A class touches Spark when its own bytecode, or the bytecode of
 * test code it reaches (this module's test classes, and test jars such as the sink's {@code SharedDeltaSpark}), names
 * a Spark or Delta class. Each module with Spark tests checks its classes in a plain test ({@code SparkTagsTest}), so a
 * new Spark test without the tag fails the README's command instead of silently leaving the 4.1 leg.
 *
 * <p>Main code is not followed: a test whose own code names no Spark or Delta type tests logic the 4.1 build compiles
 * and the tagged tests run on Spark 4.1.
 */
public final class SparkTags {
  /** The tag the Spark 4.1 leg selects. */
  public static final String TAG = "spark";
  /**
   * What touching Spark or Delta means: a class named under one of these (class-file form). Written dotted and
   * converted, so that this class's own bytecode does not name them.
   */
  public static final List<String> SPARK_PACKAGES =
      List.of("org.apache.spark.".replace('.', '/'), "io.delta.".replace('.', '/'));

  private static final Pattern OWN_CLASS = Pattern.compile("io/mssqlcdc/[A-Za-z0-9_/$]+");
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_/$]+");

  private SparkTags() {}

  /**
   * The test classes beside {@code anchor} (the classes directory it was loaded from) that touch Spark or Delta and
   * lack the tag, one line each: the chain from the class through test code to the Spark or Delta class it names
   * ({@code a.BTest -> a.Fixture -> org/apache/spark/sql/SparkSession}). Empty when all carry it.
   */
  public static List<String> untagged(Class<?> anchor) {
    return untagged(classesDirectory(anchor), "", TAG, SPARK_PACKAGES, anchor.getClassLoader());
  }

  /**
   * The same for the classes under {@code classes} whose names start with {@code packagePrefix} (dotted), with
   * {@code tag} and the class-name prefixes {@code roots} in class-file form.
   */
  public static List<String> untagged(Path classes, String packagePrefix, String tag, List<String> roots,
      ClassLoader loader) {
    List<String> found = new ArrayList<>();
    for (String name : topLevelClasses(classes)) {
      if (!name.startsWith(packagePrefix)) {
        continue;
      }
      Class<?> type = load(name, loader);
      if (!isTestClass(type) || hasTag(type, tag)) {
        continue;
      }
      path(name.replace('.', '/'), roots, loader).ifPresent(found::add);
    }
    found.sort(null);
    return found;
  }

  /** The failure message for {@link #untagged(Class)}'s result, or empty when it is empty. */
  public static String message(List<String> untagged) {
    if (untagged.isEmpty()) {
      return "";
    }
    return "These test classes touch Spark or Delta but lack @Tag(\"" + TAG + "\"), so the Spark 4.1 leg of CI"
        + " (.ci/run, -Pspark-4.1) would not run them. Add @Tag(\"" + TAG + "\") to each (docs/CONTRIBUTING.md):\n  "
        + String.join("\n  ", untagged);
  }

  /**
   * The shortest chain from {@code internalName} to a Spark or Delta class through test code, as
   * {@code a.B -> a.C -> org/apache/spark/...}, or empty when there is none (breadth first).
   */
  private static Optional<String> path(String start, List<String> roots, ClassLoader loader) {
    Map<String, String> parent = new HashMap<>();
    Deque<String> queue = new ArrayDeque<>();
    queue.add(start);
    parent.put(start, null);
    while (!queue.isEmpty()) {
      String current = queue.poll();
      String text = classText(current, loader);
      if (text == null) {
        continue;
      }
      for (String root : roots) {
        int at = text.indexOf(root);
        if (at >= 0) {
          Matcher m = NAME.matcher(text).region(at, text.length());
          return Optional.of(chain(current, parent) + (m.lookingAt() ? m.group() : root));
        }
      }
      Matcher own = OWN_CLASS.matcher(text);
      while (own.find()) {
        String next = own.group();
        if (!parent.containsKey(next) && isTestCode(next, loader)) {
          parent.put(next, current);
          queue.add(next);
        }
      }
    }
    return Optional.empty();
  }

  private static String chain(String last, Map<String, String> parent) {
    List<String> names = new ArrayList<>();
    for (String at = last; at != null; at = parent.get(at)) {
      names.add(0, at.replace('/', '.'));
    }
    names.add("");
    return String.join(" -> ", names);
  }

  /** A class file's bytes as text: constant-pool names are ASCII in modified UTF-8, so they read as written. */
  private static String classText(String internalName, ClassLoader loader) {
    try (InputStream in = loader.getResourceAsStream(internalName + ".class")) {
      return in == null ? null : new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Test code: a class from a test-classes directory or a test jar, not main code. */
  private static boolean isTestCode(String internalName, ClassLoader loader) {
    URL url = loader.getResource(internalName + ".class");
    if (url == null) {
      return false;
    }
    String where = url.toString();
    return where.contains("/test-classes/") || where.contains("-tests.jar!");
  }

  private static boolean isTestClass(Class<?> type) {
    return !Modifier.isAbstract(type.getModifiers())
        && !ReflectionSupport.findMethods(type, m -> AnnotationSupport.isAnnotated(m, Testable.class),
            HierarchyTraversalMode.TOP_DOWN).isEmpty();
  }

  private static boolean hasTag(Class<?> type, String tag) {
    return AnnotationSupport.findRepeatableAnnotations(type, Tag.class).stream().anyMatch(t -> t.value().equals(tag));
  }

  /**
   * The top-level classes under {@code classes}: a test-classes directory, or a test jar (a module's tests run from
   * its jar in the delta-tests module, docs/CONTRIBUTING.md). Finding none is an error, not a pass.
   */
  private static List<String> topLevelClasses(Path classes) {
    if (Files.isRegularFile(classes)) {
      try (java.nio.file.FileSystem jar = java.nio.file.FileSystems.newFileSystem(classes)) {
        return nonEmpty(classes, classNames(jar.getPath("/")));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return nonEmpty(classes, classNames(classes));
  }

  private static List<String> nonEmpty(Path where, List<String> names) {
    if (names.isEmpty()) {
      throw new IllegalStateException("no test class found in " + where);
    }
    return names;
  }

  private static List<String> classNames(Path root) {
    try (Stream<Path> files = Files.walk(root)) {
      return files.filter(Files::isRegularFile).map(root::relativize).map(Path::toString)
          .filter(f -> f.endsWith(".class") && !f.contains("$") && !f.endsWith("module-info.class")
              && !f.endsWith("package-info.class"))
          .map(f -> f.substring(0, f.length() - ".class".length()).replace('/', '.')
              .replace(java.io.File.separatorChar, '.'))
          .sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Class<?> load(String name, ClassLoader loader) {
    try {
      return Class.forName(name, false, loader);
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException("cannot load test class " + name + ": " + e.getMessage(), e);
    }
  }

  private static Path classesDirectory(Class<?> anchor) {
    try {
      return Path.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }
}
