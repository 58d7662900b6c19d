#ifndef TAILOR_EMBEDDED_FILES_H
#define TAILOR_EMBEDDED_FILES_H

#include <stddef.h>

// docs/openapi.json, the API's OpenAPI document, as the build found it.
const unsigned char *tailorOpenAPIDocument(void);
size_t tailorOpenAPIDocumentSize(void);

#endif
