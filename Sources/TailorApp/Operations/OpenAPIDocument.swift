import TailorDomain
import TailorHTTP
import TailorViews

/// `GET /api/openapi.json`: the HTTP API as an OpenAPI 3.1 document — routes,
/// bodies, view models, errors, and the event stream with its event types.
///
/// Kept here, in the server, so that the document a client reads is the one
/// of the server it talks to. CI validates it (openapi-spec-validator) and
/// runs schemathesis against a live server with it (`scripts/api-check`).
enum OpenAPIDocument {
    static let representation = CachedRepresentation(Array(json.utf8), contentType: HTTPResponse.jsonContentType)

    static func register(on router: inout Router) {
        router.get("/api/openapi.json") { request in representation.response(to: request) }
    }

    static let json = #"""
{
 "openapi": "3.1.0",
 "info": {
  "title": "Tailor",
  "version": "1.0.0",
  "description": "View models for chats and orders over HTTP, and every change over Server-Sent Events. Errors are {\"error\": {\"code\", \"message\"}}; view-model GETs carry strong ETags and answer If-None-Match with 304."
 },
 "servers": [
  {
   "url": "/"
  }
 ],
 "security": [
  {
   "bearer": []
  },
  {
   "sessionCookie": []
  }
 ],
 "tags": [
  {
   "name": "accounts"
  },
  {
   "name": "chats"
  },
  {
   "name": "orders"
  },
  {
   "name": "events"
  },
  {
   "name": "operations"
  }
 ],
 "paths": {
  "/api/users": {
   "post": {
    "summary": "Sign up: a user, its token and a session cookie; with a password, the name and password sign in later.",
    "operationId": "signUp",
    "responses": {
     "201": {
      "description": "Signed up.",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "required": [
          "user",
          "token"
         ],
         "properties": {
          "user": {
           "$ref": "#/components/schemas/User"
          },
          "token": {
           "type": "string"
          }
         }
        }
       }
      }
     },
     "default": {
      "$ref": "#/components/responses/Error"
     }
    },
    "tags": [
     "accounts"
    ],
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "type": "object",
        "required": [
         "name"
        ],
        "properties": {
         "name": {
          "type": "string",
          "pattern": "^[A-Za-z0-9_-]{1,32}$"
         },
         "password": {
          "type": "string",
          "minLength": 8,
          "maxLength": 128,
          "description": "8 to 128 characters and at most 512 bytes; stored as a scrypt hash."
         }
        }
       }
      }
     }
    },
    "security": []
   }
  },
  "/api/me": {
   "get": {
    "summary": "The signed-in user.",
    "operationId": "me",
    "responses": {
     "200": {
      "description": "The user.",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "required": [
          "user"
         ],
         "properties": {
          "user": {
           "$ref": "#/components/schemas/User"
          }
         }
        }
       }
      }
     },
     "default": {
      "$ref": "#/components/responses/Error"
     }
    },
    "tags": [
     "accounts"
    ]
   }
  },
  "/api/me/password": {
   "put": {
    "summary": "Sets the password; every other session of the account ends (the one asking and the account token go on). The current password is needed when there is one (422 otherwise).",
    "operationId": "changePassword",
    "tags": [
     "accounts"
    ],
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "type": "object",
        "required": [
         "password"
        ],
        "properties": {
         "password": {
          "type": "string",
          "minLength": 8,
          "maxLength": 128,
          "description": "8 to 128 characters and at most 512 bytes."
         },
         "current": {
          "type": "string",
          "description": "The password the account has now, when it has one."
         }
        }
       }
      }
     }
    },
    "responses": {
     "204": {
      "description": "Set."
     },
     "default": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/api/session": {
   "post": {
    "summary": "Sign in a new browser, with an account token or a name and password: a new session and its cookie. 401 alike for a wrong password, an unknown name or an account without a password; 429 past the tries allowed for a name.",
    "operationId": "signIn",
    "responses": {
     "200": {
      "description": "Signed in.",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "required": [
          "user"
         ],
         "properties": {
          "user": {
           "$ref": "#/components/schemas/User"
          }
         }
        }
       }
      }
     },
     "default": {
      "$ref": "#/components/responses/Error"
     }
    },
    "tags": [
     "accounts"
    ],
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "oneOf": [
         {
          "type": "object",
          "required": [
           "token"
          ],
          "properties": {
           "token": {
            "type": "string"
           }
          }
         },
         {
          "type": "object",
          "required": [
           "name",
           "password"
          ],
          "properties": {
           "name": {
            "type": "string"
           },
           "password": {
            "type": "string"
           }
          }
         }
        ]
       }
      }
     }
    },
    "security": []
   },
   "delete": {
    "summary": "Sign out: the cookie's session ends and the cookie is cleared.",
    "operationId": "signOut",
    "responses": {
     "204": {
      "description": "Signed out."
     },
     "default": {
      "$ref": "#/components/responses/Error"
     }
    },
    "tags": [
     "accounts"
    ]
   }
  },
  "/api/sessions": {
   "get": {
    "summary": "A page of the user's browser sessions, newest first.",
    "operationId": "sessions",
    "responses": {
     "200": {
      "description": "Sessions.",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "required": [
          "items",
          "next"
         ],
         "properties": {
          "items": {
           "type": "array",
           "items": {
            "$ref": "#/components/schemas/Session"
           }
          },
          "next": {
           "oneOf": [
            {
             "$ref": "#/components/schemas/Action"
            },
            {
             "type": "null"
            }
           ]
          }
         }
        }
       }
      }
     },
     "default": {
      "$ref": "#/components/responses/Error"
     }
    },
    "tags": [
     "accounts"
    ],
    "parameters": [
     {
      "name": "offset",
      "in": "query",
      "required": false,
      "schema": {
       "type": "integer",
       "minimum": 0,
       "maximum": 1000000
      },
      "description": "Sessions skipped."
     },
     {
      "name": "limit",
      "in": "query",
      "required": false,
      "schema": {
       "type": "integer",
       "minimum": 1,
       "maximum": 200
      },
      "description": "Sessions in the page (100)."
     }
    ]
   }
  },
  "/api/sessions/{id}": {
   "delete": {
    "summary": "Ends one session.",
    "operationId": "endSession",
    "responses": {
     "204": {
      "description": "Ended."
     },
     "default": {
      "$ref": "#/components/responses/Error"
     }
    },
    "tags": [
     "accounts"
    ],
    "parameters": [
     {
      "$ref": "#/components/parameters/Id"
     }
    ]
   }
  },
  "/api/chats": {
   "get": {
    "summary": "The chat list (topic chats).",
    "operationId": "chatList",
    "responses": {
     "200": {
      "description": "The chat list view model.",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/ChatList"
        }
       }
      },
      "headers": {
       "ETag": {
        "$ref": "#/components/headers/ETag"
       }
      }
     },
     "304": {
      "$ref": "#/components/responses/NotModified"
     },
     "default": {
      "$ref": "#/components/responses/Error"
     }
    },
    "tags": [
     "chats"
    ],
    "parameters": [
     {
      "name": "offset",
      "in": "query",
      "required": false,
      "schema": {
       "type": "integer",
       "minimum": 0,
       "maximum": 1000000
      },
      "description": "Chats skipped."
     },
     {
      "name": "limit",
      "in": "query",
      "required": false,
      "schema": {
       "type": "integer",
       "minimum": 1,
       "maximum": 200
      },
      "description": "Chats in the page (100)."
     }
    ]
   },
   "post": {
    "summary": "Opens the chat with a contact: 201 new, 200 existing.",
    "operationId": "openChat",
    "responses": {
     "200": {
      "description": "The existing chat.",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Chat"
        }
       }
      }
     },
     "201": {
      "description": "A new chat.",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Chat"
        }
       }
      }
     },
     "default": {
      "$ref": "#/components/responses/Error"
     }
    },
    "tags": [
     "chats"
    ],
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "type": "object",
        "required": [
         "contact"
        ],
        "properties": {
         "contact": {
          "type": "string",
          "minLength": 1,
          "maxLength": 32
         }
        }
       }
      }
     }
    }
   }
  },
  "/api/chats/{id}": {
   "get": {
    "summary": "A chat screen (topic chat:ID).",
    "operationId": "chat",
    "responses": {
     "200": {
      "description": "The chat view model.",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Chat"
        }
       }
      },
      "headers": {
       "ETag": {
        "$ref": "#/components/headers/ETag"
       }
      }
     },
     "304": {
      "$ref": "#/components/responses/NotModified"
     },
     "default": {
      "$ref": "#/components/responses/Error"
     }
    },
    "tags": [
     "chats"
    ],
    "parameters": [
     {
      "$ref": "#/components/parameters/Id"
     },
     {
      "name": "limit",
      "in": "query",
      "required": false,
      "schema": {
       "type": "integer",
       "minimum": 1,
       "maximum": 200
      },
      "description": "Messages (50)."
     },
     {
      "name": "before",
      "in": "query",
      "required": false,
      "schema": {
       "type": "integer",
       "minimum": 1
      },
      "description": "Messages before this message id."
     }
    ]
   }
  },
  "/api/chats/{id}/messages": {
   "post": {
    "summary": "Sends a message; the same clientId again answers the first with 200.",
    "operationId": "send",
    "responses": {
     "200": {
      "description": "Sent before with this clientId.",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "required": [
          "message"
         ],
         "properties": {
          "message": {
           "$ref": "#/components/schemas/Message"
          }
         }
        }
       }
      }
     },
     "201": {
      "description": "Sent.",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "required": [
          "message"
         ],
         "properties": {
          "message": {
           "$ref": "#/components/schemas/Message"
          }
         }
        }
       }
      }
     },
     "default": {
      "$ref": "#/components/responses/Error"
     }
    },
    "tags": [
     "chats"
    ],
    "parameters": [
     {
      "$ref": "#/components/parameters/Id"
     }
    ],
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "type": "object",
        "required": [
         "text"
        ],
        "properties": {
         "text": {
          "type": "string",
          "minLength": 1,
          "maxLength": 4000,
          "pattern": "\\S",
          "description": "1 to 4000 characters and at most 16 KiB after trimming."
         },
         "clientId": {
          "type": "string",
          "minLength": 1,
          "maxLength": 100,
          "description": "Any text of 1 to 100 characters and at most 128 bytes; the same again answers the first message."
         }
        }
       }
      }
     }
    }
   }
  },
  "/api/chats/{id}/read": {
   "post": {
    "summary": "Marks the other side's messages read.",
    "operationId": "markRead",
    "responses": {
     "200": {
      "description": "How many were newly marked.",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "required": [
          "read"
         ],
         "properties": {
          "read": {
           "type": "integer",
           "minimum": 0
          }
         }
        }
       }
      }
     },
     "default": {
      "$ref": "#/components/responses/Error"
     }
    },
    "tags": [
     "chats"
    ],
    "parameters": [
     {
      "$ref": "#/components/parameters/Id"
     }
    ]
   }
  },
  "/api/badge": {
   "get": {
    "summary": "Unread messages over all chats (topic badge).",
    "operationId": "badge",
    "responses": {
     "200": {
      "description": "The badge.",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "required": [
          "unread"
         ],
         "properties": {
          "unread": {
           "type": "integer",
           "minimum": 0
          }
         }
        }
       }
      },
      "headers": {
       "ETag": {
        "$ref": "#/components/headers/ETag"
       }
      }
     },
     "304": {
      "$ref": "#/components/responses/NotModified"
     },
     "default": {
      "$ref": "#/components/responses/Error"
     }
    },
    "tags": [
     "chats"
    ]
   }
  },
  "/api/orders": {
   "get": {
    "summary": "A page of the orders list (topic orders with the default parameters).",
    "operationId": "ordersList",
    "responses": {
     "200": {
      "description": "The orders view model.",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/OrdersList"
        }
       }
      },
      "headers": {
       "ETag": {
        "$ref": "#/components/headers/ETag"
       }
      }
     },
     "304": {
      "$ref": "#/components/responses/NotModified"
     },
     "default": {
      "$ref": "#/components/responses/Error"
     }
    },
    "tags": [
     "orders"
    ],
    "parameters": [
     {
      "name": "sort",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string",
       "enum": [
        "newest",
        "oldest",
        "total"
       ]
      },
      "description": "Order (newest)."
     },
     {
      "name": "layout",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string",
       "enum": [
        "list",
        "compact"
       ]
      },
      "description": "Item fields (list)."
     },
     {
      "name": "q",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string",
       "maxLength": 100
      },
      "description": "Matches the name or an item title, ignoring case."
     },
     {
      "name": "status",
      "in": "query",
      "required": false,
      "schema": {
       "$ref": "#/components/schemas/OrderStatus"
      },
      "description": "Only orders with this status."
     },
     {
      "name": "offset",
      "in": "query",
      "required": false,
      "schema": {
       "type": "integer",
       "minimum": 0,
       "maximum": 1000000
      },
      "description": "Orders skipped."
     },
     {
      "name": "limit",
      "in": "query",
      "required": false,
      "schema": {
       "type": "integer",
       "minimum": 1,
       "maximum": 200
      },
      "description": "Orders in the page (100)."
     }
    ]
   },
   "post": {
    "summary": "Places an order.",
    "operationId": "placeOrder",
    "responses": {
     "201": {
      "description": "The order view model.",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Order"
        }
       }
      }
     },
     "default": {
      "$ref": "#/components/responses/Error"
     }
    },
    "tags": [
     "orders"
    ],
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/PlaceOrder"
       }
      }
     }
    }
   }
  },
  "/api/orders/{id}": {
   "get": {
    "summary": "An order with its lines (topic order:ID).",
    "operationId": "order",
    "responses": {
     "200": {
      "description": "The order view model.",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Order"
        }
       }
      },
      "headers": {
       "ETag": {
        "$ref": "#/components/headers/ETag"
       }
      }
     },
     "304": {
      "$ref": "#/components/responses/NotModified"
     },
     "default": {
      "$ref": "#/components/responses/Error"
     }
    },
    "tags": [
     "orders"
    ],
    "parameters": [
     {
      "$ref": "#/components/parameters/Id"
     }
    ]
   },
   "patch": {
    "summary": "Moves an order to another status (409 invalid_transition).",
    "operationId": "changeOrder",
    "responses": {
     "200": {
      "description": "The order view model.",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Order"
        }
       }
      }
     },
     "default": {
      "$ref": "#/components/responses/Error"
     }
    },
    "tags": [
     "orders"
    ],
    "parameters": [
     {
      "$ref": "#/components/parameters/Id"
     }
    ],
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "type": "object",
        "required": [
         "status"
        ],
        "properties": {
         "status": {
          "$ref": "#/components/schemas/OrderStatus"
         }
        }
       }
      }
     }
    }
   },
   "delete": {
    "summary": "Deletes an order.",
    "operationId": "deleteOrder",
    "responses": {
     "204": {
      "description": "Deleted."
     },
     "default": {
      "$ref": "#/components/responses/Error"
     }
    },
    "tags": [
     "orders"
    ],
    "parameters": [
     {
      "$ref": "#/components/parameters/Id"
     }
    ]
   }
  },
  "/api/events": {
   "get": {
    "summary": "Server-Sent Events: each topic's view model, then one event per change.",
    "operationId": "events",
    "responses": {
     "200": {
      "description": "A text/event-stream that stays open. Events: `id: N`, `event: NAME`, one `data:` line of JSON. NAME is chats, chat, badge, orders, order (the view models above; a deleted order or chat is {\"id\", \"deleted\": true}) or notification; with patch=json also NAME.patch, data {\"base\", \"patch\", \"topic\"} (RFC 6902 operations against the event whose id is base). `: ping` comments keep it open.",
      "content": {
       "text/event-stream": {
        "schema": {
         "type": "string"
        }
       }
      }
     },
     "default": {
      "$ref": "#/components/responses/Error"
     }
    },
    "tags": [
     "events"
    ],
    "parameters": [
     {
      "name": "topics",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string"
      },
      "description": "Comma-separated: chats, badge, chat:ID, orders, order:ID (1 to 32)."
     },
     {
      "name": "patch",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string",
       "enum": [
        "json"
       ]
      },
      "description": "Later changes as JSON Patches where smaller."
     },
     {
      "name": "lastEventId",
      "in": "query",
      "required": false,
      "schema": {
       "type": "integer"
      },
      "description": "Resume after this event id (as the Last-Event-ID header does)."
     }
    ]
   }
  },
  "/api/openapi.json": {
   "get": {
    "summary": "This document.",
    "operationId": "openAPI",
    "responses": {
     "200": {
      "description": "OpenAPI 3.1.",
      "content": {
       "application/json": {
        "schema": {
         "type": "object"
        }
       }
      }
     },
     "default": {
      "$ref": "#/components/responses/Error"
     }
    },
    "tags": [
     "operations"
    ],
    "security": []
   }
  },
  "/healthz": {
   "get": {
    "summary": "Liveness: the process answers.",
    "operationId": "health",
    "responses": {
     "200": {
      "description": "Up.",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "required": [
          "status"
         ],
         "properties": {
          "status": {
           "const": "ok"
          }
         }
        }
       }
      }
     },
     "304": {
      "description": "Not modified."
     },
     "default": {
      "$ref": "#/components/responses/Error"
     }
    },
    "tags": [
     "operations"
    ],
    "security": []
   }
  },
  "/readyz": {
   "get": {
    "summary": "Readiness: a write commits within 2 s and the server is not stopping.",
    "operationId": "ready",
    "responses": {
     "200": {
      "description": "Ready.",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "required": [
          "status"
         ],
         "properties": {
          "status": {
           "const": "ready"
          }
         }
        }
       }
      }
     },
     "default": {
      "$ref": "#/components/responses/Error"
     }
    },
    "tags": [
     "operations"
    ],
    "security": []
   }
  },
  "/metrics": {
   "get": {
    "summary": "Figures in Prometheus's text format.",
    "operationId": "metrics",
    "responses": {
     "200": {
      "description": "Prometheus text format 0.0.4.",
      "content": {
       "text/plain": {
        "schema": {
         "type": "string"
        }
       }
      }
     },
     "default": {
      "$ref": "#/components/responses/Error"
     }
    },
    "tags": [
     "operations"
    ],
    "security": []
   }
  }
 },
 "components": {
  "securitySchemes": {
   "bearer": {
    "type": "http",
    "scheme": "bearer",
    "description": "The token sign-up returns."
   },
   "sessionCookie": {
    "type": "apiKey",
    "in": "cookie",
    "name": "tailor_session"
   }
  },
  "schemas": {
   "Action": {
    "type": "object",
    "required": [
     "method",
     "href"
    ],
    "properties": {
     "method": {
      "type": "string",
      "enum": [
       "GET",
       "POST",
       "PATCH",
       "DELETE"
      ]
     },
     "href": {
      "type": "string"
     },
     "body": {
      "type": "object",
      "additionalProperties": {
       "type": "string"
      }
     }
    }
   },
   "Message": {
    "type": "object",
    "required": [
     "id",
     "text",
     "sender",
     "senderName",
     "state",
     "time",
     "sentAt"
    ],
    "properties": {
     "id": {
      "type": "string"
     },
     "text": {
      "type": "string"
     },
     "sender": {
      "type": "string",
      "enum": [
       "me",
       "other"
      ]
     },
     "senderName": {
      "type": "string"
     },
     "state": {
      "type": "string",
      "enum": [
       "sent",
       "read"
      ]
     },
     "time": {
      "type": "string",
      "description": "In the server's time zone: 14:05, Yesterday, Monday, 3 Nov 2026."
     },
     "sentAt": {
      "type": "string",
      "format": "date-time"
     }
    }
   },
   "Chat": {
    "type": "object",
    "required": [
     "id",
     "title",
     "unreadMessageCount",
     "messages",
     "earlier",
     "actions"
    ],
    "properties": {
     "id": {
      "type": "string"
     },
     "title": {
      "type": "string"
     },
     "unreadMessageCount": {
      "type": "integer",
      "minimum": 0
     },
     "messages": {
      "type": "array",
      "items": {
       "$ref": "#/components/schemas/Message"
      },
      "description": "Oldest first."
     },
     "earlier": {
      "oneOf": [
       {
        "$ref": "#/components/schemas/Action"
       },
       {
        "type": "null"
       }
      ],
      "description": "The page before, or null."
     },
     "actions": {
      "type": "object",
      "required": [
       "send",
       "markRead"
      ],
      "properties": {
       "send": {
        "$ref": "#/components/schemas/Action"
       },
       "markRead": {
        "$ref": "#/components/schemas/Action"
       }
      }
     }
    }
   },
   "ChatListItem": {
    "type": "object",
    "required": [
     "id",
     "contact",
     "message",
     "lastMessageDate",
     "lastMessageAt",
     "unreadMessageCount",
     "open"
    ],
    "properties": {
     "id": {
      "type": "string"
     },
     "contact": {
      "type": "string"
     },
     "message": {
      "type": "string",
      "description": "A preview of the last message; empty when there is none."
     },
     "lastMessageDate": {
      "type": "string"
     },
     "lastMessageAt": {
      "type": [
       "string",
       "null"
      ],
      "format": "date-time"
     },
     "unreadMessageCount": {
      "type": "integer",
      "minimum": 0
     },
     "open": {
      "$ref": "#/components/schemas/Action"
     }
    }
   },
   "ChatList": {
    "type": "object",
    "required": [
     "title",
     "unreadTotal",
     "items",
     "next",
     "actions"
    ],
    "properties": {
     "title": {
      "type": "string"
     },
     "unreadTotal": {
      "type": "integer",
      "minimum": 0
     },
     "items": {
      "type": "array",
      "items": {
       "$ref": "#/components/schemas/ChatListItem"
      },
      "description": "Newest last message first."
     },
     "next": {
      "oneOf": [
       {
        "$ref": "#/components/schemas/Action"
       },
       {
        "type": "null"
       }
      ]
     },
     "actions": {
      "type": "object",
      "required": [
       "addChat"
      ],
      "properties": {
       "addChat": {
        "$ref": "#/components/schemas/Action"
       }
      }
     }
    }
   },
   "OrderStatus": {
    "type": "string",
    "enum": [
     "placed",
     "paid",
     "shipped",
     "delivered",
     "cancelled"
    ]
   },
   "Currency": {
    "type": "string",
    "enum": [
     "USD",
     "EUR",
     "GBP",
     "JPY"
    ]
   },
   "OrderAction": {
    "type": "object",
    "required": [
     "name",
     "label",
     "method",
     "href",
     "body"
    ],
    "properties": {
     "name": {
      "type": "string"
     },
     "label": {
      "type": "string"
     },
     "method": {
      "type": "string"
     },
     "href": {
      "type": "string"
     },
     "body": {
      "type": "object",
      "required": [
       "status"
      ],
      "properties": {
       "status": {
        "$ref": "#/components/schemas/OrderStatus"
       }
      }
     }
    }
   },
   "OrdersListItem": {
    "type": "object",
    "required": [
     "id",
     "name",
     "status",
     "statusLabel",
     "total",
     "totalCents",
     "currency",
     "date",
     "createdAt",
     "itemCount",
     "open",
     "actions"
    ],
    "properties": {
     "id": {
      "type": "string"
     },
     "name": {
      "type": "string"
     },
     "status": {
      "$ref": "#/components/schemas/OrderStatus"
     },
     "statusLabel": {
      "type": "string"
     },
     "total": {
      "type": "string",
      "description": "Formatted money: $1,234.50, €2.58, ¥258."
     },
     "totalCents": {
      "type": "integer"
     },
     "currency": {
      "$ref": "#/components/schemas/Currency"
     },
     "date": {
      "type": "string"
     },
     "createdAt": {
      "type": "string",
      "format": "date-time"
     },
     "itemCount": {
      "type": "integer",
      "minimum": 0
     },
     "open": {
      "$ref": "#/components/schemas/Action"
     },
     "actions": {
      "type": "array",
      "items": {
       "$ref": "#/components/schemas/OrderAction"
      }
     }
    }
   },
   "CompactOrder": {
    "type": "object",
    "required": [
     "id",
     "name",
     "statusLabel",
     "total",
     "open"
    ],
    "properties": {
     "id": {
      "type": "string"
     },
     "name": {
      "type": "string"
     },
     "statusLabel": {
      "type": "string"
     },
     "total": {
      "type": "string"
     },
     "open": {
      "$ref": "#/components/schemas/Action"
     }
    }
   },
   "OrderChoices": {
    "type": "object",
    "description": "What a page offers: the list's sorts, layouts and status filters (value \"\" is every status), and the currencies of a new order with the minor units in one unit.",
    "required": [
     "sort",
     "layout",
     "status",
     "currencies"
    ],
    "properties": {
     "sort": {
      "$ref": "#/components/schemas/Choices"
     },
     "layout": {
      "$ref": "#/components/schemas/Choices"
     },
     "status": {
      "$ref": "#/components/schemas/Choices"
     },
     "currencies": {
      "type": "array",
      "items": {
       "type": "object",
       "required": [
        "code",
        "minorUnits"
       ],
       "properties": {
        "code": {
         "type": "string"
        },
        "minorUnits": {
         "type": "integer",
         "minimum": 1
        }
       }
      }
     }
    }
   },
   "Choices": {
    "type": "array",
    "items": {
     "type": "object",
     "required": [
      "value",
      "label"
     ],
     "properties": {
      "value": {
       "type": "string"
      },
      "label": {
       "type": "string"
      }
     }
    }
   },
   "OrdersList": {
    "type": "object",
    "required": [
     "title",
     "count",
     "sort",
     "layout",
     "items",
     "next",
     "choices"
    ],
    "properties": {
     "choices": {
      "$ref": "#/components/schemas/OrderChoices"
     },
     "title": {
      "type": "string"
     },
     "count": {
      "type": "integer",
      "minimum": 0,
      "description": "Items in this page."
     },
     "sort": {
      "type": "string",
      "enum": [
       "newest",
       "oldest",
       "total"
      ]
     },
     "layout": {
      "type": "string",
      "enum": [
       "list",
       "compact"
      ]
     },
     "items": {
      "type": "array",
      "items": {
       "anyOf": [
        {
         "$ref": "#/components/schemas/OrdersListItem"
        },
        {
         "$ref": "#/components/schemas/CompactOrder"
        }
       ]
      }
     },
     "next": {
      "oneOf": [
       {
        "$ref": "#/components/schemas/Action"
       },
       {
        "type": "null"
       }
      ]
     }
    }
   },
   "Order": {
    "allOf": [
     {
      "$ref": "#/components/schemas/OrdersListItem"
     },
     {
      "type": "object",
      "required": [
       "lines"
      ],
      "properties": {
       "lines": {
        "type": "array",
        "items": {
         "type": "object",
         "required": [
          "title",
          "quantity",
          "unitPrice",
          "lineTotal"
         ],
         "properties": {
          "title": {
           "type": "string"
          },
          "quantity": {
           "type": "integer"
          },
          "unitPrice": {
           "type": "string"
          },
          "lineTotal": {
           "type": "string"
          }
         }
        }
       }
      }
     }
    ]
   },
   "User": {
    "type": "object",
    "required": [
     "id",
     "name"
    ],
    "properties": {
     "id": {
      "type": "string"
     },
     "name": {
      "type": "string"
     }
    }
   },
   "Session": {
    "type": "object",
    "required": [
     "id",
     "createdAt",
     "lastSeenAt",
     "userAgent",
     "current"
    ],
    "properties": {
     "id": {
      "type": "string"
     },
     "createdAt": {
      "type": "string",
      "format": "date-time"
     },
     "lastSeenAt": {
      "type": "string",
      "format": "date-time"
     },
     "userAgent": {
      "type": "string"
     },
     "current": {
      "type": "boolean"
     }
    }
   },
   "PlaceOrder": {
    "type": "object",
    "required": [
     "name",
     "items"
    ],
    "properties": {
     "name": {
      "type": "string",
      "minLength": 1,
      "maxLength": 100,
      "pattern": "\\S"
     },
     "currency": {
      "anyOf": [
       {
        "$ref": "#/components/schemas/Currency"
       },
       {
        "type": "null"
       }
      ],
      "description": "USD when absent or null."
     },
     "items": {
      "type": "array",
      "minItems": 1,
      "maxItems": 100,
      "items": {
       "type": "object",
       "required": [
        "title",
        "quantity",
        "priceCents"
       ],
       "properties": {
        "title": {
         "type": "string",
         "minLength": 1,
         "maxLength": 200,
         "pattern": "\\S"
        },
        "quantity": {
         "type": "integer",
         "minimum": 1,
         "maximum": 1000
        },
        "priceCents": {
         "type": "integer",
         "minimum": 0,
         "maximum": 10000000
        }
       }
      }
     }
    }
   },
   "Error": {
    "type": "object",
    "required": [
     "error"
    ],
    "properties": {
     "error": {
      "type": "object",
      "required": [
       "code",
       "message"
      ],
      "properties": {
       "code": {
        "type": "string",
        "pattern": "^[a-z0-9_]+$"
       },
       "message": {
        "type": "string"
       }
      }
     }
    }
   }
  },
  "responses": {
   "Error": {
    "description": "An error: 400 malformed, 401 no or bad credentials, 404 unknown or not yours, 405 wrong method, 409 conflict, 413 body too large, 415 not JSON, 422 invalid fields or query values, 429 rate limited (Retry-After), 503 busy or unavailable (Retry-After), 507 storage full.",
    "content": {
     "application/json": {
      "schema": {
       "$ref": "#/components/schemas/Error"
      }
     }
    }
   },
   "NotModified": {
    "description": "Not modified (If-None-Match matched).",
    "headers": {
     "ETag": {
      "$ref": "#/components/headers/ETag"
     }
    }
   }
  },
  "headers": {
   "ETag": {
    "description": "Strong entity tag of this representation.",
    "schema": {
     "type": "string"
    }
   }
  },
  "parameters": {
   "Id": {
    "name": "id",
    "in": "path",
    "required": true,
    "schema": {
     "type": "string"
    },
    "description": "The id, as a view model gives it."
   }
  }
 }
}
"""#
}
