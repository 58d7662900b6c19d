// Files of the repository that the server serves as they are, taken into the
// binary when it is built (C23's #embed), so that the file stays the one
// place they are written and a server needs no folder beside it to serve them.

#include "EmbeddedFiles.h"

static const unsigned char openAPIDocument[] = {
#embed "../../docs/openapi.json"
};

const unsigned char *tailorOpenAPIDocument(void) { return openAPIDocument; }
size_t tailorOpenAPIDocumentSize(void) { return sizeof(openAPIDocument); }
