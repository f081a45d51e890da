// A small strict XML reader: a recursive-descent parser over the text, bounded in size and depth.
#include "runtime/interop/XmlReader.h"

#include "runtime/plan/PlanError.h"

#include <cstdint>

namespace collplan {

const std::string *XmlElement::attribute(std::string_view key) const {
  for (const auto &[name, value] : attributes)
    if (name == key) return &value;
  return nullptr;
}

namespace {

bool isNameStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}
bool isNameChar(char c) { return isNameStart(c) || (c >= '0' && c <= '9') || c == '-' || c == '.'; }
bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/// A printable form of one character for messages.
std::string shown(char c) {
  if (c >= 0x21 && c <= 0x7e) return std::string("'") + c + "'";
  static const char *hex = "0123456789abcdef";
  const auto u = static_cast<unsigned char>(c);
  return std::string("byte 0x") + hex[u >> 4] + hex[u & 15];
}

class XmlParser {
public:
  XmlParser(std::string_view text, const std::string &origin) : text_(text), origin_(origin) {}

  XmlElement document() {
    if (text_.size() > kMaxXmlBytes)
      fail("the document has " + std::to_string(text_.size()) + " bytes, more than the limit of " +
           std::to_string(kMaxXmlBytes));
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3; // UTF-8 byte order mark
    if (text_.substr(pos_, 5) == "<?xml") skipDeclaration();
    skipMisc();
    if (atEnd()) fail("the document has no root element");
    XmlElement root = element(1);
    skipMisc();
    if (!atEnd()) fail("unexpected content after the root element <" + root.name + ">");
    return root;
  }

private:
  [[noreturn]] void fail(const std::string &reason) const {
    throw PlanError(origin_ + ":" + std::to_string(line_), "", reason);
  }
  bool atEnd() const { return pos_ >= text_.size(); }
  char peek() const { return atEnd() ? '\0' : text_[pos_]; }
  bool startsWith(std::string_view s) const { return text_.substr(pos_, s.size()) == s; }
  void advance() {
    if (text_[pos_] == '\n') ++line_;
    ++pos_;
  }
  void skipSpaces() {
    while (!atEnd() && isSpace(peek())) advance();
  }
  void expect(char c, const std::string &where) {
    if (atEnd()) fail("unexpected end of the document " + where);
    if (peek() != c)
      fail("expected '" + std::string(1, c) + "' " + where + ", found " + shown(peek()));
    advance();
  }

  void skipDeclaration() {
    while (!atEnd() && !startsWith("?>")) advance();
    if (atEnd()) fail("unterminated XML declaration");
    pos_ += 2;
  }
  void skipComment() {
    pos_ += 4;
    while (!atEnd() && !startsWith("-->")) advance();
    if (atEnd()) fail("unterminated comment");
    pos_ += 3;
  }
  /// Whitespace and comments between elements.
  void skipMisc() {
    for (;;) {
      skipSpaces();
      if (startsWith("<!--"))
        skipComment();
      else if (startsWith("<!") || startsWith("<?"))
        fail("DTDs, CDATA sections and processing instructions are not supported");
      else
        return;
    }
  }

  std::string name(const std::string &what) {
    if (!isNameStart(peek()))
      fail("expected " + what + ", found " + (atEnd() ? "the end of the document" : shown(peek())));
    const size_t begin = pos_;
    while (!atEnd() && isNameChar(peek())) advance();
    return std::string(text_.substr(begin, pos_ - begin));
  }

  void appendUtf8(std::string &out, uint32_t cp) {
    if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
      fail("character reference to an invalid code point " + std::to_string(cp));
    if (cp < 0x80) {
      out += char(cp);
      return;
    }
    if (cp < 0x800) {
      out += char(0xC0 | (cp >> 6));
    } else if (cp < 0x10000) {
      out += char(0xE0 | (cp >> 12));
      out += char(0x80 | ((cp >> 6) & 63));
    } else {
      out += char(0xF0 | (cp >> 18));
      out += char(0x80 | ((cp >> 12) & 63));
      out += char(0x80 | ((cp >> 6) & 63));
    }
    out += char(0x80 | (cp & 63));
  }
  uint32_t characterReference(std::string_view ref) {
    const bool hex = ref.size() > 1 && ref[1] == 'x';
    uint32_t cp = 0;
    size_t digits = 0;
    for (char c : ref.substr(hex ? 2 : 1)) {
      int d = c >= '0' && c <= '9'          ? c - '0'
              : hex && c >= 'a' && c <= 'f' ? c - 'a' + 10
              : hex && c >= 'A' && c <= 'F' ? c - 'A' + 10
                                            : -1;
      if (d < 0 || ++digits > 8) fail("malformed character reference &" + std::string(ref) + ";");
      cp = cp * (hex ? 16 : 10) + uint32_t(d);
    }
    if (digits == 0) fail("malformed character reference &" + std::string(ref) + ";");
    return cp;
  }
  void entity(std::string &out) {
    advance(); // '&'
    const size_t begin = pos_;
    while (!atEnd() && peek() != ';' && pos_ - begin < 12) advance();
    if (peek() != ';') fail("unterminated entity reference in an attribute value");
    const std::string_view ref = text_.substr(begin, pos_ - begin);
    advance();
    if (ref == "lt")
      out += '<';
    else if (ref == "gt")
      out += '>';
    else if (ref == "amp")
      out += '&';
    else if (ref == "apos")
      out += '\'';
    else if (ref == "quot")
      out += '"';
    else if (!ref.empty() && ref[0] == '#')
      appendUtf8(out, characterReference(ref));
    else
      fail("unknown entity &" + std::string(ref) + "; (only lt, gt, amp, apos, quot)");
  }
  std::string attributeValue(const std::string &key) {
    const char quote = peek();
    if (quote != '"' && quote != '\'') fail("the value of attribute " + key + " must be quoted");
    advance();
    std::string value;
    while (!atEnd() && peek() != quote) {
      if (peek() == '<') fail("'<' in the value of attribute " + key);
      if (peek() == '&')
        entity(value);
      else {
        value += peek();
        advance();
      }
    }
    if (atEnd()) fail("unterminated value of attribute " + key);
    advance();
    return value;
  }
  void attributes(XmlElement &e) {
    for (;;) {
      const bool spaced = isSpace(peek());
      skipSpaces();
      if (atEnd() || peek() == '/' || peek() == '>') return;
      if (!spaced) fail("expected whitespace before an attribute of <" + e.name + ">");
      std::string key = name("an attribute name in <" + e.name + ">");
      if (e.attribute(key)) fail("<" + e.name + "> has attribute " + key + " twice");
      skipSpaces();
      expect('=', "after attribute " + key);
      skipSpaces();
      std::string value = attributeValue(key);
      e.attributes.emplace_back(std::move(key), std::move(value));
    }
  }
  void children(XmlElement &e, int depth) {
    for (;;) {
      skipMisc();
      if (atEnd()) fail("<" + e.name + "> (line " + std::to_string(e.line) + ") is not closed");
      if (startsWith("</")) break;
      if (peek() != '<') fail("text content is not supported (in <" + e.name + ">)");
      e.children.push_back(element(depth + 1));
    }
    pos_ += 2;
    const std::string closing = name("an element name after '</'");
    if (closing != e.name)
      fail("</" + closing + "> closes <" + e.name + "> (line " + std::to_string(e.line) + ")");
    skipSpaces();
    expect('>', "to end </" + closing);
  }
  XmlElement element(int depth) {
    if (depth > kMaxXmlDepth)
      fail("elements nest deeper than " + std::to_string(kMaxXmlDepth) + " levels");
    XmlElement e;
    e.line = line_;
    expect('<', "to open an element");
    e.name = name("an element name");
    attributes(e);
    if (startsWith("/>")) {
      pos_ += 2;
      return e;
    }
    expect('>', "to end the start tag of <" + e.name + ">");
    children(e, depth);
    return e;
  }

  std::string_view text_;
  const std::string &origin_;
  size_t pos_ = 0;
  int line_ = 1;
};

} // namespace

XmlElement parseXml(std::string_view text, const std::string &origin) {
  return XmlParser(text, origin).document();
}

} // namespace collplan
