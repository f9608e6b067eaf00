// SPDX-License-Identifier: LGPL-2.1-or-later
// The http worker's PROPFIND parser (and the HTTP date parser under it) on arbitrary
// bytes. Input: one byte of flags (bits 0-1: mode, bit 2: tight limits), then pieces
// (see fuzz_common.h): the request path, then the body in the chunks it arrives in.
// Checked: members have safe names and are not the collection, the limits hold, nothing
// is reported after an error or a stop, and a parsed date formats back to itself.
#include "fuzz_common.h"
#include "httpdate_p.h"
#include "propfindparser_p.h"
#include "url.h"

using namespace Qvfs::Http;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const uint8_t flags = data[0];
    QvfsFuzz::Pieces pieces(data + 1, size - 1);
    QByteArrayView piece;
    bool flag = false;
    if (!pieces.next(&piece, &flag))
        return 0;
    const QByteArray requestPath = piece.toByteArray();
    const int modeBits = flags & 3;
    const PropfindParser::Mode mode = modeBits == 1 ? PropfindParser::Mode::Self
        : modeBits == 2                             ? PropfindParser::Mode::All
                                                    : PropfindParser::Mode::Children;
    PropfindParser::Limits limits;
    if (flags & 4) {
        limits.maxDepth = 8;
        limits.maxTextBytes = 64;
        limits.maxEntries = 3;
        limits.maxPendingBytes = 256;
    }
    qint64 reported = 0;
    bool closed = false;
    PropfindParser parser(
        requestPath, mode,
        [&](const DavEntry &e) {
            QVFS_FUZZ_CHECK(!closed);
            ++reported;
            QVFS_FUZZ_CHECK(reported <= limits.maxEntries);
            if (mode == PropfindParser::Mode::Children) {
                QVFS_FUZZ_CHECK(!e.isSelf);
                QVFS_FUZZ_CHECK(Qvfs::Url::isSafeName(e.name));
            }
            if (e.mtime)
                QVFS_FUZZ_CHECK(parseHttpDate(formatHttpDate(*e.mtime)) == e.mtime || *e.mtime < -62167219200LL
                    || *e.mtime > 253402300799LL);
            QVFS_FUZZ_CHECK(e.size >= -1);
            // a member that says stop ends the reporting
            return !(flags & 8) || reported < 2;
        },
        limits);
    bool going = true;
    while (pieces.next(&piece, &flag)) {
        (void)decodedHrefPath(piece, requestPath);
        (void)parseStatusLine(piece);
        if (const auto t = parseHttpDate(piece))
            QVFS_FUZZ_CHECK(parseHttpDate(formatHttpDate(*t)) == t || *t < -62167219200LL || *t > 253402300799LL);
        const QByteArray exact = piece.toByteArray(); // exact-size copy: overreads show
        if (going && !parser.addData(exact)) {
            going = false;
            closed = true;
            QVFS_FUZZ_CHECK(parser.hasError() || parser.stopped());
        }
    }
    if (going) {
        const bool complete = parser.finish();
        QVFS_FUZZ_CHECK(complete == !parser.hasError());
    }
    QVFS_FUZZ_CHECK(parser.entryCount() == reported);
    return 0;
}
