package io.mssqlcdc.testing.sparktags;

import org.junit.jupiter.api.Tag;

/** A tagged base class: JUnit's tags are inherited. */
@Tag("spark")
abstract class TaggedBase {}
