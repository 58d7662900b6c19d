@testable import TailorApp
import Testing

@Suite struct ChatbotTests {
    @Test func theBotAnswersShowThatItUnderstood() {
        #expect(Chatbot.answer(to: "hello there").hasPrefix("Hello!"))
        #expect(Chatbot.answer(to: "pizza").contains("pizza"))
    }
}
