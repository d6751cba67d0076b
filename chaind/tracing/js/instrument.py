"""Runaway protection for tracer source: a deadline check spliced into every loop and function body.

QuickJS's own time limit forbids calls into Python (db.*, stack.peek), so the check is JS code.
"""

import tree_sitter
import tree_sitter_javascript

_LANGUAGE = tree_sitter.Language(tree_sitter_javascript.language())

_LOOPS = frozenset({"for_statement", "for_in_statement", "while_statement", "do_statement"})
_FUNCTIONS = frozenset({"function_declaration", "function_expression", "generator_function",
                        "generator_function_declaration", "arrow_function", "method_definition"})


class SourceError(Exception):
    """The tracer source cannot be run; the message is geth-style (`SyntaxError: ... at <eval>:L:C`)."""


class Instrumented:
    """The wrapped tracer source, `"(" + code + ")"` as geth evaluates it, with `tick()` calls spliced in.

    `original_position(line, col)` maps a position QuickJS reports in `text` back to the
    wrapped source the user wrote, so errors name the user's own line and column.
    """

    def __init__(self, code, tick):
        self.source = ("(" + code + ")").encode()
        parser = tree_sitter.Parser(_LANGUAGE)
        tree = parser.parse(self.source)
        root = tree.root_node
        if root.has_error:
            raise SourceError(_syntax_error(self.source, root))
        inserts = []
        _walk(root, tick, inserts)
        inserts.sort(key=lambda item: item[0])
        pieces, at, shift = [], 0, 0
        self._spans = []                          # (start, end) of each splice in `text`, and its source offset
        for offset, text in inserts:
            data = text.encode()
            pieces += [self.source[at:offset], data]
            self._spans.append((offset + shift, offset + shift + len(data), offset))
            shift += len(data)
            at = offset
        pieces.append(self.source[at:])
        self._text = b"".join(pieces)
        self.text = self._text.decode()

    def original_position(self, line, col):
        """(line, col), 1-based, in the instrumented text -> the same place in the user's wrapped source."""
        offset = _offset_of(self._text, line, col)
        shift = 0
        for start, end, source_offset in self._spans:
            if offset < start:
                break
            if offset < end:
                return _position_of(self.source, source_offset)
            shift += end - start
        return _position_of(self.source, offset - shift)


def _walk(node, tick, inserts):
    kind = node.type
    if kind == "with_statement":
        raise SourceError("SyntaxError: 'with' statements are not allowed in tracers at <eval>:%d:%d"
                          % (node.start_point[0] + 1, node.start_point[1] + 1))
    if kind in _LOOPS:
        _guard_statement(node.child_by_field_name("body"), tick, inserts)
    elif kind in _FUNCTIONS:
        body = node.child_by_field_name("body")
        if body is not None and body.type == "statement_block":
            _guard_block(body, tick, inserts, skip_directives=True)
        elif body is not None:                    # an arrow function's expression body
            inserts.append((body.start_byte, "(%s(), " % tick))
            inserts.append((body.end_byte, ")"))
    for child in node.children:
        _walk(child, tick, inserts)


def _guard_statement(body, tick, inserts):
    if body is None:
        return
    if body.type == "statement_block":
        _guard_block(body, tick, inserts, skip_directives=False)
    else:
        inserts.append((body.start_byte, "{%s();" % tick))
        inserts.append((body.end_byte, "}"))


def _guard_block(block, tick, inserts, skip_directives):
    at = block.start_byte + 1                     # after "{"
    if skip_directives:                           # keep "use strict" first, where it means something
        for child in block.named_children:
            if child.type == "expression_statement" and child.named_child_count == 1 \
                    and child.named_children[0].type == "string":
                at = child.end_byte
            else:
                break
    inserts.append((at, "%s();" % tick))


def _syntax_error(source, root):
    bad = _first_error(root)
    line, col = bad.start_point[0] + 1, bad.start_point[1] + 1
    if bad.is_missing:
        return "SyntaxError: missing %s at <eval>:%d:%d" % (bad.type, line, col)
    token = source[bad.start_byte:bad.end_byte].decode(errors="replace").split("\n")[0][:40]
    if not token:
        return "SyntaxError: unexpected end of input at <eval>:%d:%d" % (line, col)
    return "SyntaxError: unexpected token '%s' at <eval>:%d:%d" % (token, line, col)


def _first_error(node):
    for child in node.children:
        if child.type == "ERROR" or child.is_missing:
            return child
        if child.has_error:
            return _first_error(child)
    return node


def _offset_of(text, line, col):
    at = 0
    for _ in range(line - 1):
        nl = text.find(b"\n", at)
        if nl < 0:
            break
        at = nl + 1
    return min(len(text), at + max(0, col - 1))


def _position_of(text, offset):
    line = text.count(b"\n", 0, offset) + 1
    start = text.rfind(b"\n", 0, offset) + 1
    return line, offset - start + 1
