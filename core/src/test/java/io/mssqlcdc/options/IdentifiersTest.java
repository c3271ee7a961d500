package io.mssqlcdc.options;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.errors.CdcConfigException;
import org.junit.jupiter.api.Test;

class IdentifiersTest {

  @Test
  void quotesByDoublingClosingBrackets() {
    assertThat(Identifiers.quote("orders")).isEqualTo("[orders]");
    assertThat(Identifiers.quote("a]b")).isEqualTo("[a]]b]");
    assertThat(Identifiers.quote("x'--")).isEqualTo("[x'--]");
    assertThat(Identifiers.quote("Situação")).isEqualTo("[Situação]");
  }

  @Test
  void captureInstancesAcceptAnyLettersButNoBracketOrControlCharacter() {
    assertThat(Identifiers.captureInstance("dbo_Situação")).isEqualTo("dbo_Situação");
    assertThat(Identifiers.captureInstance("x'--")).isEqualTo("x'--");
    assertThatThrownBy(() -> Identifiers.captureInstance("a]b"))
        .isInstanceOf(CdcConfigException.class).hasMessageContaining("']' is not allowed");
    assertThatThrownBy(() -> Identifiers.captureInstance("a\nb"))
        .isInstanceOf(CdcConfigException.class)
        .hasMessageContaining("Invalid capture instance 'a\\u000ab'")
        .hasMessageContaining("control character at position 1");
    assertThatThrownBy(() -> Identifiers.captureInstance("x".repeat(101)))
        .hasMessageContaining("longer than 100 characters");
    assertThatThrownBy(() -> Identifiers.name("column", "a\u0000b")).hasMessageContaining("control character");
  }
}
