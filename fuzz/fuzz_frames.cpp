// SPDX-License-Identifier: LGPL-2.1-or-later
// A hostile byte stream on the socket: the first input byte chooses how the rest is cut
// into reads; FrameReader splits it into frames and every payload goes through each
// message decoder (Command, Error, Hello, MetaData; Entries frames through the entry
// decoder too). What decodes must encode and decode again to the same values.
#include "entrycodec_p.h"
#include "frame_p.h"
#include "fuzz_common.h"
#include "metadata.h"

using namespace Qvfs;
using namespace Qvfs::Internal;

namespace
{

void payloadDecoders(const Wire::Header &h, const QByteArray &payload, EntryDecoder &entries)
{
    {
        Wire::Command cmd {};
        QList<QByteArray> urls;
        MetaData options;
        if (decodeCommand(payload, &cmd, &urls, &options)) {
            QVFS_FUZZ_CHECK(quint32(cmd) <= 1000);
            QVFS_FUZZ_CHECK(urls.size() <= 65536);
            const QByteArray again = encodeCommand(cmd, urls, options);
            Wire::Command cmd2 {};
            QList<QByteArray> urls2;
            MetaData options2;
            QVFS_FUZZ_CHECK(decodeCommand(again, &cmd2, &urls2, &options2));
            QVFS_FUZZ_CHECK(cmd2 == cmd && urls2 == urls && options2 == options);
            QVFS_FUZZ_CHECK(again.size() <= payload.size()); // canonical form is never longer
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
