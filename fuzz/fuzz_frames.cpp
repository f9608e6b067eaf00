// SPDX-License-Identifier: LGPL-2.1-or-later
// A hostile byte stream on the socket: the first input byte chooses how the rest is cut
// into reads; FrameReader splits it into frames and every payload goes through each
// message decoder (Command, Error, Hello, MetaData, a watch's Changes; Entries frames
// through the entry decoder too). What decodes must encode and decode again to the same values.
#include "entrycodec_p.h"
#include "frame_p.h"
#include "fuzz_common.h"
#include "metadata.h"
#include "requests_p.h"

using namespace Qvfs;
using namespace Qvfs::Internal;

namespace
{

// Every typed request decoder on whatever command came: bounded values, no crash.
void typedRequests(const WireCommand &c)
{
    ListRequest list;
    if (fromWire(c, &list))
        QVFS_FUZZ_CHECK(list.url == c.urls.at(0));
    CopyRequest copy;
    if (fromWire(c, &copy))
        QVFS_FUZZ_CHECK(copy.sources.size() == c.urls.size() - 1 && copy.target <= CopyRequest::Target::IntoIfFolder);
    DeleteRequest del;
    if (fromWire(c, &del))
        QVFS_FUZZ_CHECK(del.scope <= DeleteRequest::Scope::NotFolder);
    MkdirRequest mkdir;
    if (fromWire(c, &mkdir))
        QVFS_FUZZ_CHECK(mkdir.permissions >= -1 && mkdir.permissions <= 07777);
    PutRequest put;
    if (fromWire(c, &put))
        QVFS_FUZZ_CHECK(put.permissions >= -1 && put.permissions <= 07777);
    ChmodRequest chmod;
    if (fromWire(c, &chmod))
        QVFS_FUZZ_CHECK(chmod.permissions >= 0 && chmod.permissions <= 07777);
    SetTimeRequest time;
    if (fromWire(c, &time))
        QVFS_FUZZ_CHECK(time.nanoseconds >= 0 && time.nanoseconds <= 999999999);
    StatRequest stat;
    GetRequest get;
    RenameRequest rename;
    SymlinkRequest symlink;
    DirectorySizeRequest size;
    FreeSpaceRequest space;
    FileCopyRequest fileCopy;
    (void)fromWire(c, &stat);
    if (fromWire(c, &get))
        QVFS_FUZZ_CHECK(get.offset >= 0);
    (void)fromWire(c, &rename);
    (void)fromWire(c, &symlink);
    (void)fromWire(c, &size);
    if (fromWire(c, &space))
        QVFS_FUZZ_CHECK(space.url == c.urls.at(0));
    (void)fromWire(c, &fileCopy);
    WatchRequest watch;
    if (fromWire(c, &watch))
        QVFS_FUZZ_CHECK(watch.pollMs >= 0 && watch.pollMs <= 24 * 3600 * 1000);
}

// Questions, answers and progress decode from any options block.
void typedBlocks(const MetaData &m)
{
    const int kind = questionKind(m);
    QVFS_FUZZ_CHECK(kind >= 0 && kind <= int(QuestionKind::Certificate));
    (void)decodeConflictQuestion(m);
    (void)decodePasswordQuestion(m);
    (void)decodeTrustQuestion(m);
    const ConflictAnswer a = decodeConflictAnswer(m);
    QVFS_FUZZ_CHECK(a.action <= ConflictAction::Cancel);
    (void)decodeCredentials(m);
    QVFS_FUZZ_CHECK(decodeTrust(m) <= Trust::Always);
    const Progress p = decodeProgress(m);
    for (int u = 0; u < 3; ++u)
        QVFS_FUZZ_CHECK(p.total[size_t(u)] >= -1 && p.processed[size_t(u)] >= -1);
}

void payloadDecoders(const Wire::Header &h, const QByteArray &payload, EntryDecoder &entries)
{
    {
        WireCommand c;
        if (decodeCommand(payload, &c)) {
            QVFS_FUZZ_CHECK(quint32(c.command) <= 1000);
            QVFS_FUZZ_CHECK(c.urls.size() <= 65536);
            const QByteArray again = encodeCommand(c);
            WireCommand c2;
            QVFS_FUZZ_CHECK(decodeCommand(again, &c2));
            QVFS_FUZZ_CHECK(c2.command == c.command && c2.urls.size() == c.urls.size() && c2.options == c.options);
            for (qsizetype i = 0; i < c.urls.size(); ++i)
                QVFS_FUZZ_CHECK(c2.urls.at(i).toEncoded() == c.urls.at(i).toEncoded());
            typedRequests(c);
        }
    }
    {
        QUrl url;
        if (decodeRedirection(payload, &url))
            QVFS_FUZZ_CHECK(url.isValid());
        CopyItemEvent event;
        QUrl from, to;
        if (decodeItem(payload, &event, &from, &to))
            QVFS_FUZZ_CHECK(event >= CopyItemEvent::Copying && event <= CopyItemEvent::Moved);
        // A watch's report: bounded by the payload, and the same again after a round trip.
        WatchChanges changes;
        if (decodeChanges(payload, &changes)) {
            QVFS_FUZZ_CHECK(changes.kind >= WatchChanges::Kind::Listed && changes.kind <= WatchChanges::Kind::Moved);
            QVFS_FUZZ_CHECK(changes.mode <= WatchMode::PollingAtLimit);
            WatchChanges again;
            QVFS_FUZZ_CHECK(decodeChanges(encodeChanges(changes), &again));
            QVFS_FUZZ_CHECK(again.kind == changes.kind && again.removed == changes.removed
                && again.renamed == changes.renamed && again.mode == changes.mode);
        }
    }
    {
        int code = -1;
        QStringList args;
        if (decodeError(payload, &code, &args)) {
            QVFS_FUZZ_CHECK(code > 0 && code <= (1 << 20));
            QVFS_FUZZ_CHECK(args.size() <= 16);
        }
    }
    {
        quint32 version = 0;
        MetaData info;
        if (decodeHello(payload, &version, &info)) {
            const QByteArray again = encodeHello(info);
            quint32 v2 = 0;
            MetaData info2;
            QVFS_FUZZ_CHECK(decodeHello(again, &v2, &info2));
            QVFS_FUZZ_CHECK(info2 == info && v2 == Wire::ProtocolVersion);
        }
    }
    {
        MetaData m;
        qsizetype used = -1;
        if (m.decode(payload, &used)) {
            QVFS_FUZZ_CHECK(used >= 1 && used <= payload.size());
            QVFS_FUZZ_CHECK(m.size() <= MetaData::MaxItems);
            for (const QByteArray &k : m.keys()) {
                QVFS_FUZZ_CHECK(!k.isEmpty() && k.size() <= MetaData::MaxKeyLength);
                QVFS_FUZZ_CHECK(m.contains(k));
                (void)m.number(k);
                (void)m.bytes(k);
                (void)m.string(k);
            }
            QByteArray again;
            m.encode(again);
            MetaData m2;
            qsizetype used2 = -1;
            QVFS_FUZZ_CHECK(m2.decode(again, &used2));
            QVFS_FUZZ_CHECK(m2 == m && used2 == again.size());
            typedBlocks(m);
        } else {
            QVFS_FUZZ_CHECK(m.isEmpty());
        }
    }
    if (h.type == quint16(Wire::Msg::Entries)) {
        QByteArray error;
        const QExplicitlySharedDataPointer<EntryBatch> b = entries.decode(payload, &error);
        if (b) {
            for (qsizetype i = 0; i < b->offsets.size(); ++i)
                (void)readFields(b.data(), quint32(i));
        }
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    quint32 seed = data[0] * 2654435761u + 1;
    const char *p = reinterpret_cast<const char *>(data + 1);
    const char *end = reinterpret_cast<const char *>(data + size);
    FrameReader reader;
    EntryDecoder entries;
    bool bad = false;
    while (p < end && !bad) {
        seed = seed * 1103515245u + 12345u;
        const qsizetype chunk = std::min<qsizetype>(qsizetype(1 + (seed >> 16) % 97), end - p);
        reader.feed(QByteArrayView(p, chunk));
        p += chunk;
        for (;;) {
            Wire::Header h;
            QByteArray payload;
            const FrameReader::NextResult r = reader.next(&h, &payload);
            if (r == FrameReader::NeedMore)
                break;
            if (r == FrameReader::Bad) {
                bad = true;
                break;
            }
            QVFS_FUZZ_CHECK(h.length <= Wire::MaxPayload && payload.size() == qsizetype(h.length));
            payloadDecoders(h, payload, entries);
        }
    }
    return 0;
}
